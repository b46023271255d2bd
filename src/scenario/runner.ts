import { availableParallelism } from 'node:os';
import { offersChildren } from './child.js';
import { loadScenario } from './load.js';
import { Receiver } from './receiver.js';
import type { FileResult } from './results.js';
import { ScenarioRun, type RunOptions } from './run.js';
import { remoteTarget, type Target } from './target.js';
import { ScenarioFileError, type Scenario } from './types.js';

export interface RunnerOptions extends RunOptions {
  /** Without it, each file runs against a sandbox of its own that `embedded` starts. */
  baseUrl?: string;
  /**
   * Starts a private sandbox for one file (the command line's embeddedTarget): the runner is a client and starts no
   * server itself.
   */
  embedded?: () => Promise<Target>;
  apiKey?: string;
  adminToken?: string;
  /** The host the sandbox uses to reach the receiver (default 127.0.0.1). */
  receiverHost?: string;
  /** Files running at once (default: twice the cores, at least 8). */
  concurrency?: number;
  /** Called as each file finishes, so output can stream. */
  onFile?: (result: FileResult) => void;
}

export type LoadOutcome = { ok: true; scenarios: Scenario[] } | { ok: false; errors: ScenarioFileError[] };

/** Loads and validates every file before anything runs, collecting every malformed file. */
export async function loadAll(files: string[], cwd = process.cwd()): Promise<LoadOutcome> {
  const settled = await Promise.allSettled(files.map((f) => loadScenario(f, cwd)));
  const errors = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
  for (const e of errors) if (!(e instanceof ScenarioFileError)) throw e;
  if (errors.length > 0) return { ok: false, errors: errors as ScenarioFileError[] };
  return { ok: true, scenarios: settled.map((s) => (s as PromiseFulfilledResult<Scenario>).value) };
}

/**
 * Runs scenarios, several files at once: each file has its own account (and, embedded, its own sandbox), so
 * files are independent. One receiver serves every file through a private inbox each.
 */
export async function runScenarios(scenarios: Scenario[], opts: RunnerOptions = {}): Promise<FileResult[]> {
  const needsReceiver = scenarios.some(
    (s) => s.webhook || s.steps.some((st) => 'expectWebhook' in st || 'receiver' in st),
  );
  const receiver = needsReceiver ? new Receiver() : undefined;
  const host = opts.receiverHost ?? '127.0.0.1';
  await receiver?.start(host, isLoopback(host) ? host : '0.0.0.0');
  // With only a key, each file runs in a child sandbox of the key's account when the target offers them (never in
  // the account itself); files sharing the account (a target without children) would see each other's cards: those
  // run one at a time.
  const children = Boolean(
    opts.baseUrl &&
    opts.apiKey &&
    !opts.adminToken &&
    !opts.seeding &&
    (await offersChildren(opts.baseUrl, opts.apiKey)),
  );
  const shared = Boolean(opts.baseUrl && !opts.adminToken && !children);
  // Files mostly wait on I/O (requests, webhook waits), so more run at once than there are cores.
  const limit = shared ? 1 : (opts.concurrency ?? Math.max(8, availableParallelism() * 2));
  const results: FileResult[] = new Array(scenarios.length);
  let next = 0;
  const worker = async () => {
    while (next < scenarios.length) {
      const i = next++;
      results[i] = await runOne(scenarios[i], opts, receiver, children);
      opts.onFile?.(results[i]);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(limit, scenarios.length) }, worker));
  } finally {
    await receiver?.close();
  }
  return results;
}

async function runOne(
  scenario: Scenario,
  opts: RunnerOptions,
  receiver: Receiver | undefined,
  children: boolean,
): Promise<FileResult> {
  let target: Target;
  try {
    if (opts.baseUrl) target = remoteTarget(opts.baseUrl, opts.apiKey, opts.adminToken, children);
    else if (opts.embedded) target = await opts.embedded();
    else throw new Error('no base URL, and no sandbox of its own to start');
  } catch (err) {
    const message = `cannot start the sandbox: ${err instanceof Error ? err.message : String(err)}`;
    return {
      file: scenario.file,
      name: scenario.name,
      ok: false,
      ms: 0,
      contractsSkipped: false,
      steps: [{ label: 'start sandbox', file: scenario.file, line: 1, ok: false, ms: 0, failure: { message } }],
    };
  }
  try {
    const result = await new ScenarioRun(scenario, target, receiver, opts).run();
    if (!opts.baseUrl) return noteOnCurls(result, EMBEDDED_GONE);
    return children ? noteOnCurls(result, CHILD_GONE) : result;
  } finally {
    await target.close();
  }
}

const EMBEDDED_GONE =
  '# This ran in an embedded sandbox that is gone now: to replay it, start `card-sandbox serve` and run the file with --base-url and --api-key.';

const CHILD_GONE =
  "# This ran in a child sandbox deleted after the run: $SANDBOX_API_KEY stood for the child's key; with your own key the request acts on your own account.";

/**
 * A failure's curl outlives where it ran: the embedded sandbox's port is closed when the file ends, a child sandbox
 * is deleted. Say so above the curl rather than let a replay fail or act elsewhere unannounced.
 */
function noteOnCurls(result: FileResult, note: string): FileResult {
  const steps = result.steps.map((s) =>
    s.failure?.curl ? { ...s, failure: { ...s.failure, curl: `${note}\n${s.failure.curl}` } } : s,
  );
  return { ...result, steps };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
