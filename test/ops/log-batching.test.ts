import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LineBatcher } from '../../src/logging/line-batcher.js';
import { ensureBuilt, ROOT } from '../cli/cli-process.js';

/** A sink that records what it was handed, chunk by chunk, and whether it was asked to write synchronously. */
function recordingSink() {
  const chunks: string[] = [];
  let syncFlushes = 0;
  return {
    chunks,
    syncFlushes: () => syncFlushes,
    write: (chunk: string) => chunks.push(chunk),
    flushSync: () => void syncFlushes++,
  };
}

describe('the server log hands its worker lines in batches, and loses none of them', () => {
  let batcher: LineBatcher | undefined;
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    batcher?.close();
    vi.useRealTimers();
  });

  it('holds the lines of one moment and hands them over together, once its delay has passed', () => {
    const sink = recordingSink();
    batcher = new LineBatcher(sink, { maxDelayMs: 20 });
    batcher.write('{"msg":"a"}\n');
    batcher.write('{"msg":"b"}\n');
    vi.advanceTimersByTime(19);
    expect(sink.chunks).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sink.chunks).toEqual(['{"msg":"a"}\n{"msg":"b"}\n']);
    batcher.write('{"msg":"c"}\n');
    vi.advanceTimersByTime(20);
    expect(sink.chunks).toEqual(['{"msg":"a"}\n{"msg":"b"}\n', '{"msg":"c"}\n']);
  });

  it('hands a full batch over at once, without waiting for the delay', () => {
    const sink = recordingSink();
    batcher = new LineBatcher(sink, { maxChars: 20, maxDelayMs: 1_000 });
    batcher.write('0123456789\n');
    expect(sink.chunks).toEqual([]);
    batcher.write('abcdefghij\n');
    expect(sink.chunks).toEqual(['0123456789\nabcdefghij\n']);
    // Nothing is left to hand over when the timer of the first line fires.
    vi.advanceTimersByTime(1_000);
    expect(sink.chunks).toHaveLength(1);
  });

  it('writes what it holds when asked to flush synchronously (pino does so after a fatal line)', () => {
    const sink = recordingSink();
    batcher = new LineBatcher(sink);
    batcher.write('{"level":60,"msg":"fatal"}\n');
    batcher.flushSync();
    expect(sink.chunks).toEqual(['{"level":60,"msg":"fatal"}\n']);
    expect(sink.syncFlushes()).toBe(1);
  });

  it('reaches stdout with the line logged just before the process exits', () => {
    vi.useRealTimers();
    ensureBuilt();
    const logger = join(ROOT, 'dist/src/logging/logger.js');
    // The compiled logger (its worker thread included), a line, and an exit in the same turn: the line was still
    // held by the batcher when the process began to exit.
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { createLogger } = await import(${JSON.stringify(logger)});
         const log = createLogger({ level: 'info' });
         log.info({ n: 1 }, 'first');
         log.info({ n: 2 }, 'last words');
         process.exit(0);`,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; n: number });
    expect(lines.map((l) => [l.msg, l.n])).toEqual([
      ['first', 1],
      ['last words', 2],
    ]);
  });
});
