import { writeFileSync } from 'node:fs';
import type { components } from '../contracts/api-types.js';
import { parseCommand, usageError, type CommandSpec } from './args.js';
import { requireTarget, targetOptions } from './target-options.js';
import { CliFailure, SandboxClient } from './client.js';
import { formatReport, junitReport } from './readiness-report.js';

// `card-sandbox readiness`: starts a readiness run, says what to exercise, polls readiness/get until the run is done
// (whoever ended it: its window's end, every check decided, a stop from the console or the API; Ctrl-C stops it at
// once), prints the report and exits 1 when a check failed.

/** A run as the API answers it (readiness/run, get and stop answer the same shape). */
type RunView = components['schemas']['sandbox.readiness.run'];

export const READINESS_SPEC = {
  command: 'card-sandbox readiness',
  synopsis: '--base-url URL --api-key KEY [--webhook-url URL] [--window SECONDS] [--full-window] [--junit FILE]',
  summary:
    "Grades your side of the integration before production: signed test deliveries to your webhook receiver, and how your client handles a lost answer, a 500, a 429 and 4009 during a window. Run your integration's tests against the sandbox while it waits.",
  options: {
    ...targetOptions({ apiKey: 'the account your integration uses' }),
    'webhook-url': {
      type: 'string',
      arg: 'URL',
      help: "where the test deliveries go (default: the account's webhook URL)",
    },
    window: { type: 'string', arg: 'SECONDS', help: 'how long to watch your API use, 1 to 86400 (default 600)' },
    'full-window': {
      type: 'boolean',
      help: 'run the whole window, even once every check is decided (by default the run ends then)',
    },
    junit: { type: 'string', arg: 'FILE', help: 'write a JUnit XML report (not observed checks are skipped)' },
  },
  footer:
    'Check ids and how to pass each: docs/readiness.md.\n' +
    'exit codes: 0 no check failed, 1 a check failed (or the run was refused), 2 usage, 3 unreachable or the key refused',
} as const satisfies CommandSpec;

const POLL_MS = 1000;

export async function runReadiness(argv: string[]): Promise<number> {
  const parsed = parseCommand(READINESS_SPEC, argv);
  if (!parsed.ok) return parsed.exitCode;
  const { values } = parsed;
  const target = requireTarget(values);
  const windowSeconds = values.window === undefined ? undefined : Number(values.window);
  if ('problem' in target) return usageError(READINESS_SPEC, target.problem).exitCode;
  if (
    windowSeconds !== undefined &&
    (!/^\d+$/.test(values.window ?? '') || windowSeconds < 1 || windowSeconds > 86_400)
  ) {
    return usageError(READINESS_SPEC, '--window must be a whole number of seconds from 1 to 86400').exitCode;
  }
  const client = new SandboxClient(target.baseUrl, target.apiKey);
  // Listening before anything is printed: a Ctrl-C that follows the instructions at once must stop the run, not
  // kill the process with its run still armed.
  const interrupt = new Interrupt();
  try {
    const started = (await client.post('/sandbox/v1/readiness/run', {
      ...(values['webhook-url'] !== undefined && { webhookUrl: values['webhook-url'] }),
      ...(windowSeconds !== undefined && { windowSeconds }),
      ...(values['full-window'] && { fullWindow: true }),
    })) as unknown as RunView;
    process.stdout.write(intro(started, client.baseUrl));
    const run = await waitForEnd(client, started, interrupt);
    process.stdout.write(`\n${endedText(run)}\n${formatReport(run)}`);
    if (values.junit) writeFileSync(values.junit, junitReport(run));
    return run.checks.some((c) => c.result === 'fail') ? 1 : 0;
  } catch (err) {
    if (!(err instanceof CliFailure)) throw err;
    process.stderr.write(`card-sandbox readiness: ${err.message}\n`);
    return err.exitCode;
  } finally {
    interrupt.close();
  }
}

/** What the partner should do now, in a few lines. */
function intro(run: RunView, baseUrl: string): string {
  const until = run.endsAt.slice(11, 19);
  const seconds = Math.round((Date.parse(run.endsAt) - Date.parse(run.startedAt)) / 1000);
  const receiver = run.receiver
    ? `Receiver: 5 signed test deliveries are on their way to ${run.receiver}.`
    : 'Receiver: no webhook configured (PUT /v1/webhook), so the receiver checks will not be observed.';
  return [
    `Readiness run ${run.runId} started: the window ends at ${until} UTC (${seconds} s).`,
    receiver,
    `Now run your integration against ${baseUrl} with this key (its tests, or a script):`,
    '  - create cards and top them up (card/create, card/deposit): one answer will be lost, one will be a 500',
    '  - read (card/list, wallet/assetList, bill/list ...): one read gets a 429 with Retry-After: 2',
    '  - set the inventory to 0 (sandbox/v1/inventory) and call card/create: how does it handle 4009?',
    '  - run traffic (sandbox/v1/traffic/start), then post what your ledger says of each card (sandbox/v1/readiness/ledger)',
    run.fullWindow
      ? 'Waiting for the window to end (--full-window); Ctrl-C ends it now.'
      : 'Waiting until every check is decided, or the window ends; Ctrl-C ends it now.',
    '',
  ].join('\n');
}

/** Why the run ended, in one line. */
function endedText(run: RunView): string {
  switch (run.endedBy) {
    case 'decided':
      return `The run ended at ${run.endsAt.slice(11, 19)} UTC: every check was decided.`;
    case 'stop':
      return `The run was stopped at ${run.endsAt.slice(11, 19)} UTC (Ctrl-C, the console or readiness/stop).`;
    default:
      return `The run's window ended at ${run.endsAt.slice(11, 19)} UTC.`;
  }
}

/** Ctrl-C, once: `pause` ends early when it comes. */
class Interrupt {
  stopping = false;
  private readonly signalled: Promise<void>;
  private readonly onSignal: () => void;

  constructor() {
    let resolve!: () => void;
    this.signalled = new Promise<void>((r) => (resolve = r));
    this.onSignal = () => {
      this.stopping = true;
      resolve();
    };
    process.once('SIGINT', this.onSignal);
  }

  async pause(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.signalled, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  close(): void {
    process.off('SIGINT', this.onSignal);
  }
}

/**
 * Polls readiness/get until the run is done (its window ended, however, and its test deliveries answered): a run
 * stopped from the console or the API, or ended by its checks being decided, ends the command too. Ctrl-C stops the
 * run at once: readiness/stop answers the final report.
 */
async function waitForEnd(client: SandboxClient, run: RunView, interrupt: Interrupt): Promise<RunView> {
  for (;;) {
    if (interrupt.stopping) {
      process.stdout.write('Stopping the run (waiting for the test deliveries still on the wire)...\n');
      return (await client.post('/sandbox/v1/readiness/stop', { runId: run.runId })) as unknown as RunView;
    }
    const now = (await client.post('/sandbox/v1/readiness/get', { runId: run.runId })) as unknown as RunView;
    if (now.status === 'done') return now;
    await interrupt.pause(POLL_MS);
  }
}
