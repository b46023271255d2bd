/** The scenario file format, as the schema in contracts/scenario.schema.json describes it. */

export interface Expect {
  status?: number | number[];
  body?: unknown;
  headers?: Record<string, unknown>;
  contract?: boolean;
}

interface CallFields {
  name?: string;
  body?: unknown;
  headers?: Record<string, string | number | boolean>;
  auth?: 'key' | 'none';
  expect?: Expect;
  capture?: Record<string, string>;
}

export interface RequestStep extends CallFields {
  request: string;
  /** Run while a fault holds this request; then every held request is released and its answer checked. */
  whileHeld?: (RequestStep | SandboxStep)[];
}
export interface SandboxStep extends CallFields {
  sandbox: string;
}
export interface AdminStep extends CallFields {
  admin: string;
}
interface AdvanceStep {
  name?: string;
  advance: number | string;
}
export interface WebhookStep {
  name?: string;
  expectWebhook: { type: string; id?: string; data?: unknown; within?: number | string; count?: number };
  capture?: Record<string, string>;
}
interface ReceiverStep {
  name?: string;
  receiver: { status: number; times?: number };
}
interface ParallelStep {
  name?: string;
  parallel: (RequestStep | SandboxStep)[];
}

export type StepBody = RequestStep | SandboxStep | AdminStep | AdvanceStep | WebhookStep | ReceiverStep | ParallelStep;

/** A step with where it was written, so every report can point at the file and line. */
export type Step = StepBody & { file: string; line: number };

interface AccountSpec {
  depositFeeRate?: string | number;
  balance?: number;
  requireIdempotencyKey?: boolean;
  depositAddress?: string | null;
  clock?: 'frozen' | 'running';
}

export interface Scenario {
  file: string;
  name: string;
  account?: AccountSpec;
  webhook?: { deliver3dsCode?: boolean };
  vars: Record<string, unknown>;
  /** Included files' steps first, then this file's. */
  steps: Step[];
}

/** One problem of a malformed file: its line (0: the file as a whole) and what is wrong. */
export interface FileProblem {
  line: number;
  detail: string;
}

/**
 * A malformed file: every problem found in it, each with its line, reported before anything runs. `line` and
 * `detail` are the first problem's (in line order).
 */
export class ScenarioFileError extends Error {
  readonly line: number;
  readonly detail: string;
  readonly problems: readonly FileProblem[];

  constructor(
    readonly file: string,
    line: number,
    detail: string,
    more: readonly FileProblem[] = [],
  ) {
    const problems = [{ line, detail }, ...more].sort((a, b) => a.line - b.line);
    super(problems.map((p) => (p.line > 0 ? `${file}:${p.line}: ${p.detail}` : `${file}: ${p.detail}`)).join('\n'));
    this.problems = problems;
    this.line = problems[0]!.line;
    this.detail = problems[0]!.detail;
  }
}
