import { appendFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { JunitWriter } from '../proxy/junit.js';
import { readRecording, RecordingError } from '../replay/recording.js';
import {
  divergenceBlock,
  outcomeCase,
  reportLine,
  skippedLine,
  summaryLine,
  totals,
  valueLine,
} from '../replay/report.js';
import { replay, type Outcome } from '../replay/run.js';
import { ChildRefused, KeyRefused, TargetUnreachable } from '../verify/http.js';
import { parseCommand, usageError, type CommandSpec } from './args.js';
import { requireTarget, targetOptions } from './target-options.js';

export const REPLAY_SPEC = {
  command: 'card-sandbox replay',
  synopsis: 'FILE.jsonl --base-url URL --api-key KEY [--report FILE.jsonl] [--junit FILE]',
  summary:
    "Replays a recording made by `card-sandbox proxy --record` against a sandbox, in a child sandbox it creates and deletes (the key's own account never changes), and compares each answer with the recorded one: status, code, field presence, JSON types and enum values are divergences; other values are reported apart.",
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
    'exit status: 0 no divergence; 1 divergences; 2 usage error (or a file that is not a recording);\n' +
    '3 the target is unreachable, refused the key, or cannot make a child sandbox; 130 interrupted',
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
  let recording;
  try {
    recording = await readRecording(file);
  } catch (err) {
    const why = err instanceof RecordingError ? err.message : (err as Error).message;
    process.stderr.write(`card-sandbox replay: ${file} is not a recording: ${why}\n`);
    return 2;
  }

  const out = (text: string) => void process.stdout.write(text + '\n');
  if (values.report) writeFileSync(values.report, '');
  const junit = values.junit ? new JunitWriter(values.junit, 'card-sandbox replay') : undefined;
  const outcomes: Outcome[] = [];
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  out(`Replaying ${recording.length} exchanges from ${basename(file)} against ${target.baseUrl}`);
  try {
    const result = await replay({
      ...target,
      recording,
      name: `replay of ${basename(file)}`,
      timeoutMs: timeout === undefined ? undefined : Number(timeout),
      signal: stop.signal,
      onOutcome(o) {
        outcomes.push(o);
        for (const d of o.divergences) out(divergenceBlock(o, d));
        if (o.skipped !== undefined) out(skippedLine(o));
        if (values.report) appendFileSync(values.report, reportLine(o) + '\n');
        junit?.add(outcomeCase(o));
      },
    });
    const differences = outcomes.flatMap((o) => o.values.map((v) => valueLine(o, v)));
    if (differences.length > 0) {
      out('Value differences (not failures; values depend on the account):');
      for (const line of differences.slice(0, SHOWN_VALUE_LINES)) out(line);
      if (differences.length > SHOWN_VALUE_LINES) {
        out(
          `  ... and ${differences.length - SHOWN_VALUE_LINES} more${values.report ? ` (all in ${values.report})` : ''}`,
        );
      }
    }
    const t = totals(outcomes);
    out(summaryLine(t));
    out(`Ran in child sandbox ${result.childAccountId} (deleted), seeded with ${result.seeded}.`);
    if (result.interrupted) {
      out('Interrupted: the rest of the recording was not replayed.');
      return 130;
    }
    return t.divergences > 0 ? 1 : 0;
  } catch (err) {
    if (err instanceof TargetUnreachable || err instanceof KeyRefused || err instanceof ChildRefused) {
      process.stderr.write(`card-sandbox replay: ${err.message}\n`);
      return 3;
    }
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    junit?.finish();
  }
}
