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

/** A malformed file: reported with its file and line before anything runs. */
export class ScenarioFileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly detail: string,
  ) {
    super(line > 0 ? `${file}:${line}: ${detail}` : `${file}: ${detail}`);
  }
}
