import { parseCommand, runGroup, usageError, type CommandSpec } from './args.js';
import { requireTarget, targetOptions } from './target-options.js';
import { CliFailure, SandboxClient } from './client.js';
import type { components } from '../contracts/api-types.js';

type RequestSummary = components['schemas']['sandbox.requests.response']['requests'][number];

// `card-sandbox logs tail`: follows the account's request log (POST /sandbox/v1/requests, newest first) by polling
// for records newer than the last one seen, printing each as one short line (or JSON with --json).

export const LOGS_TAIL_SPEC = {
  command: 'card-sandbox logs tail',
  synopsis: '--base-url URL --api-key KEY [--path P] [--status S] [--json]',
  summary:
    "Follows the account's request log: prints each request made after it started (time, method, path, status, code, latency, request id), and under it what an injected fault did to it and the answer's Sandbox-Hint. Its own polling is not shown.",
  options: {
    ...targetOptions(),
    path: { type: 'string', arg: 'P', help: 'only this exact path, e.g. /v1/card/create' },
    status: { type: 'string', arg: 'S', help: 'only this status (400) or class (4xx)' },
    json: { type: 'boolean', help: 'print each record summary as a JSON line' },
    interval: { type: 'string', arg: 'MS', help: 'milliseconds between polls (default 1000)' },
  },
  footer: 'Runs until interrupted. exit codes: 2 usage, 3 unreachable or the key refused, 1 another failure',
} as const satisfies CommandSpec;

const OWN_PATH = '/sandbox/v1/requests';
/** Pages read per poll at most: past this many new records, the oldest of them are skipped (said on stderr). */
const MAX_PAGES = 10;
const PAGE = 200;

/** `card-sandbox logs`: one sub-command, `tail`. */
export function runLogsCommand(argv: string[]): Promise<number> {
  return runGroup(
    {
      command: 'card-sandbox logs',
      summary: "The account's request log (what Stripe's request logs give).",
      subcommands: { tail: { summary: 'follow the request log', run: runLogsTail } },
    },
    argv,
  );
}

export async function runLogsTail(argv: string[]): Promise<number> {
  const parsed = parseCommand(LOGS_TAIL_SPEC, argv);
  if (!parsed.ok) return parsed.exitCode;
  const { values } = parsed;
  const target = requireTarget(values);
  const intervalMs = Number(values.interval ?? '1000');
  const status =
    values.status === undefined ? undefined : /^\d{3}$/.test(values.status) ? Number(values.status) : values.status;
  if ('problem' in target) return usageError(LOGS_TAIL_SPEC, target.problem).exitCode;
  const problem =
    typeof status === 'string' && !/^[1-5]xx$/.test(status)
      ? '--status must be a status (400) or a class (4xx)'
      : !Number.isInteger(intervalMs) || intervalMs < 50
        ? '--interval must be at least 50 (milliseconds)'
        : undefined;
  if (problem) return usageError(LOGS_TAIL_SPEC, problem).exitCode;
  const client = new SandboxClient(target.baseUrl, target.apiKey);
  const filter = { ...(values.path && { path: values.path }), ...(status !== undefined && { status }) };
  const print = values.json
    ? (r: RequestSummary) => process.stdout.write(`${JSON.stringify(r)}\n`)
    : (r: RequestSummary) => process.stdout.write(`${line(r)}\n`);
  try {
    // What is already in the log is the starting point: only what comes after it is printed.
    let seen = new Set((await newest(client, filter, new Set())).map((r) => r.requestId));
    process.stderr.write(`Tailing the request log of ${client.baseUrl}${describe(filter)}. Ctrl-C to stop.\n`);
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
      const fresh = await newest(client, filter, seen);
      for (const r of fresh.reverse()) if (r.path !== OWN_PATH || values.path === OWN_PATH) print(r);
      seen = new Set([...fresh.map((r) => r.requestId), ...seen].slice(0, PAGE * MAX_PAGES));
    }
  } catch (err) {
    if (!(err instanceof CliFailure)) throw err;
    process.stderr.write(`card-sandbox logs tail: ${err.message}\n`);
    return err.exitCode;
  }
}

/** The records newer than the first already seen one, newest first (every page when nothing was seen yet: one). */
async function newest(client: SandboxClient, filter: object, seen: Set<string>): Promise<RequestSummary[]> {
  const out: RequestSummary[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const body = await client.post('/sandbox/v1/requests', { ...filter, limit: PAGE, ...(cursor && { cursor }) });
    const records = (body.requests ?? []) as RequestSummary[];
    const stop = records.findIndex((r) => seen.has(r.requestId));
    out.push(...(stop < 0 ? records : records.slice(0, stop)));
    cursor = (body.nextCursor as string | null) ?? null;
    if (stop >= 0 || !cursor || seen.size === 0) return out;
  }
  process.stderr.write(`(more than ${PAGE * MAX_PAGES} new records since the last poll: the oldest were skipped)\n`);
  return out;
}

const describe = (filter: { path?: string; status?: string | number }) =>
  [filter.path && ` path ${filter.path}`, filter.status !== undefined && ` status ${filter.status}`]
    .filter(Boolean)
    .join(',');

const INDENT = ' '.repeat(14);

/**
 * `20:31:05.123  POST /v1/card/create  200  code 0  14 ms  req_...` (replayed, idempotency key and `console` when
 * so), then, indented, what an injected fault did (a dropped answer is no plain 200) and the answer's hint.
 */
function line(r: RequestSummary): string {
  const time = r.time.slice(11, 23) || r.time;
  const extra = [
    r.idempotencyKey && `idempotency-key ${r.idempotencyKey}`,
    r.replayed && 'replayed',
    r.source === 'console' && 'console',
  ].filter(Boolean);
  const head = [
    time,
    `${r.method} ${r.path}`,
    r.fault?.answer === 'dropped' ? `${r.status} (dropped: the client got no answer)` : String(r.status),
    r.code === null || r.code === undefined ? 'code -' : `code ${r.code}`,
    `${r.latencyMs} ms`,
    r.requestId,
    ...extra,
  ].join('  ');
  const notes = [r.fault && `fault: ${r.fault.text}`, r.hint && `hint: ${r.hint}`].filter(Boolean);
  return [head, ...notes.map((n) => `${INDENT}${n}`)].join('\n');
}
