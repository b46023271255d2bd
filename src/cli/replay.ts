import { appendFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { JunitWriter } from '../proxy/junit.js';
import { readExchanges, RecordingError, scanRecording, type RecordingSummary } from '../replay/recording.js';
import {
  divergenceBlock,
  outcomeCase,
  reportLine,
  skippedLine,
  summaryLine,
  Tally,
  valueLine,
} from '../replay/report.js';
import { replay, type ReplayResult } from '../replay/run.js';
import { ChildRefused, KeyRefused, TargetUnreachable } from '../verify/http.js';
import { parseCommand, usageError, type CommandSpec } from './args.js';
import { requireTarget, targetOptions } from './target-options.js';

export const REPLAY_SPEC = {
  command: 'card-sandbox replay',
  synopsis: 'FILE.jsonl --base-url URL --api-key KEY [--report FILE.jsonl] [--junit FILE]',
  summary:
    "Replays a recording made by `card-sandbox proxy --record` against a sandbox, in a child sandbox it creates and deletes (the key's own account never changes, and the child delivers nothing), and compares each answer with the recorded one: status, code, field presence, JSON types and enum values are divergences; other values are reported apart.",
  allowPositionals: true,
  options: {
    ...targetOptions({
      baseUrl: 'the sandbox to replay against',
      apiKey: 'an account of it; the replay runs in a child of it',
    }),
    report: {
      type: 'string',
      arg: 'FILE.jsonl',
      help: 'write one JSON line per exchange: result, divergences, values',
    },
    junit: { type: 'string', arg: 'FILE', help: 'write a JUnit XML report (one test case per exchange)' },
    'timeout-ms': { type: 'string', arg: 'N', help: 'longest wait for one answer (default 30000)' },
  },
  footer:
    'exit status: 0 no divergence; 1 divergences; 2 usage error, or a file that is not a recording the replay can\n' +
    'send (checked whole before anything is sent); 3 the target is unreachable, refused the key, cannot make a child\n' +
    'sandbox, or its child sandbox could not be deleted (its id is printed); 130 interrupted (Ctrl-C: the exchange\n' +
    'under way finishes; a second Ctrl-C abandons it; the child is deleted either way)',
} as const satisfies CommandSpec;

const SHOWN_VALUE_LINES = 20;

/** `card-sandbox replay`: replays, prints, reports; deletes its child sandbox on every way out. */
export async function runReplay(argv: string[]): Promise<number> {
  const parsed = parseCommand(REPLAY_SPEC, argv);
  if (!parsed.ok) return parsed.exitCode;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) return usageError(REPLAY_SPEC, 'give one recording FILE.jsonl').exitCode;
  const target = requireTarget(values);
  if ('problem' in target) return usageError(REPLAY_SPEC, target.problem).exitCode;
  const timeout = values['timeout-ms'];
  if (timeout !== undefined && !/^[1-9]\d*$/.test(timeout)) {
    return usageError(REPLAY_SPEC, '--timeout-ms must be a positive integer').exitCode;
  }
  const file = positionals[0]!;
  // The whole file is read (streamed) and judged before anything is sent: a malformed line sends nothing.
  let summary: RecordingSummary;
  try {
    summary = await scanRecording(file);
  } catch (err) {
    const why = err instanceof RecordingError ? err.message : (err as Error).message;
    process.stderr.write(`card-sandbox replay: ${file} is not a recording: ${why}\n`);
    return 2;
  }

  const out = (text: string) => void process.stdout.write(text + '\n');
  if (values.report) writeFileSync(values.report, '');
  const junit = values.junit ? new JunitWriter(values.junit, 'card-sandbox replay') : undefined;
  const tally = new Tally();
  const differences: string[] = [];
  // The first Ctrl-C lets the exchange under way finish; a second abandons it. Either way the child is deleted: the
  // handler stays until the end, so no further Ctrl-C can kill the process with its child alive.
  const stop = new AbortController();
  const hurry = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) return hurry.abort();
    stop.abort();
    process.stderr.write(
      'card-sandbox replay: interrupted: finishing the exchange under way (Ctrl-C again abandons it); ' +
        'the child sandbox is deleted either way\n',
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  out(`Replaying ${summary.exchanges} exchanges from ${basename(file)} against ${target.baseUrl}`);
  try {
    const result = await replay({
      ...target,
      exchanges: readExchanges(file),
      summary,
      name: `replay of ${basename(file)}`,
      timeoutMs: timeout === undefined ? undefined : Number(timeout),
      signal: stop.signal,
      hurry: hurry.signal,
      onOutcome(o) {
        tally.add(o);
        for (const d of o.divergences) out(divergenceBlock(o, d));
        if (o.skipped !== undefined) out(skippedLine(o));
        if (values.report) appendFileSync(values.report, reportLine(o) + '\n');
        junit?.add(outcomeCase(o));
        for (const v of o.values) if (differences.length < SHOWN_VALUE_LINES) differences.push(valueLine(o, v));
      },
    });
    const t = tally.totals;
    if (t.values > 0) {
      out('Value differences (not failures; values depend on the account):');
      for (const line of differences) out(line);
      if (t.values > SHOWN_VALUE_LINES) {
        out(`  ... and ${t.values - SHOWN_VALUE_LINES} more${values.report ? ` (all in ${values.report})` : ''}`);
      }
    }
    if (!result.failure) out(summaryLine(t));
    const childLeft = reportChild(result, out);
    if (result.failure) return failed(result.failure);
    if (childLeft) return 3;
    if (result.interrupted) {
      out('Interrupted: the rest of the recording was not replayed.');
      return 130;
    }
    return t.divergences > 0 ? 1 : 0;
  } catch (err) {
    return failed(err);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    junit?.finish();
  }
}

/** Says what became of the child sandbox; true when it is still there. */
function reportChild(result: ReplayResult, out: (text: string) => void): boolean {
  const { child, childAccountId, seeded } = result;
  if (child.deleted) {
    out(
      `Ran in child sandbox ${childAccountId} (${child.alreadyGone ? 'already gone' : 'deleted'}), seeded with ${seeded}.`,
    );
    return false;
  }
  const expires = result.childExpiresAt ? `; it deletes itself at ${result.childExpiresAt}` : '';
  process.stderr.write(
    `card-sandbox replay: could not delete child sandbox ${childAccountId} (${child.why}): delete it with ` +
      `POST /sandbox/v1/sandboxes/delete {"accountId": "${childAccountId}"}${expires}\n`,
  );
  out(`Ran in child sandbox ${childAccountId} (NOT deleted), seeded with ${seeded}.`);
  return true;
}

/** A replay that could not go on: the target's doing is exit 3, anything else is thrown on. */
function failed(err: unknown): number {
  if (err instanceof TargetUnreachable || err instanceof KeyRefused || err instanceof ChildRefused) {
    process.stderr.write(`card-sandbox replay: ${err.message}\n`);
    return 3;
  }
  throw err;
}
