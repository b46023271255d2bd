import { execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LineBatcher } from '../../src/logging/line-batcher.js';
import { ensureBuilt, ROOT } from '../helpers/cli-process.js';

/** A sink that records what it was handed, chunk by chunk, and whether it was asked to write synchronously. */
function recordingSink() {
  const chunks: string[] = [];
  let syncFlushes = 0;
  const events = new EventEmitter();
  return {
    chunks,
    syncFlushes: () => syncFlushes,
    write: (chunk: string) => chunks.push(chunk),
    flushSync: () => void syncFlushes++,
    flush: (cb: () => void) => setImmediate(cb),
    once: (event: 'close', listener: () => void) => events.once(event, listener),
    close: () => events.emit('close'),
  };
}

/** What a process running the compiled logger printed: `script` gets `log`, a logger writing stdout. */
function loggedBy(script: string): { msg: string; n: number }[] {
  ensureBuilt();
  const logger = join(ROOT, 'dist/src/logging/logger.js');
  let out: string;
  try {
    out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { createLogger } = await import(${JSON.stringify(logger)});
         const log = createLogger({ level: 'info' });
         ${script}`,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
  } catch (err) {
    // Killed by its own SIGKILL: what it printed before is what counts.
    out = (err as { stdout?: string }).stdout ?? '';
  }
  return out
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { msg: string; n: number });
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

  it('hands what it holds over when pino asks it to flush, and calls back once the sink has written it', async () => {
    const sink = recordingSink();
    batcher = new LineBatcher(sink);
    batcher.write('{"msg":"a"}\n');
    vi.useRealTimers();
    await new Promise<void>((resolve) => batcher!.flush(() => resolve()));
    expect(sink.chunks).toEqual(['{"msg":"a"}\n']);
  });

  it('stops watching the process exit once its sink has closed', () => {
    const sink = recordingSink();
    const before = process.listenerCount('exit');
    batcher = new LineBatcher(sink);
    expect(process.listenerCount('exit')).toBe(before + 1);
    sink.close();
    expect(process.listenerCount('exit')).toBe(before);
  });

  it('reaches stdout with the line logged just before the process exits, while its worker is starting', () => {
    vi.useRealTimers();
    // A line and an exit in the same turn as the logger's creation: pino's own exit handler of a worker that is not
    // ready yet ends it.
    const lines = loggedBy(`log.info({ n: 1 }, 'first'); log.info({ n: 2 }, 'last words'); process.exit(0);`);
    expect(lines.map((l) => [l.msg, l.n])).toEqual([
      ['first', 1],
      ['last words', 2],
    ]);
  });

  it('reaches stdout with the line logged just before the process exits, once its worker runs', () => {
    vi.useRealTimers();
    // The worker is ready long before: pino ends it from its other exit handler (on-exit-leak-free).
    const lines = loggedBy(
      `log.info({ n: 1 }, 'first');
       setTimeout(() => { log.info({ n: 2 }, 'last words'); process.exit(0); }, 500);`,
    );
    expect(lines.map((l) => [l.msg, l.n])).toEqual([
      ['first', 1],
      ['last words', 2],
    ]);
  });

  it('reaches stdout with a fatal line even when the process is killed right after it', () => {
    vi.useRealTimers();
    const lines = loggedBy(
      `setTimeout(() => { log.info({ n: 1 }, 'before'); log.fatal({ n: 2 }, 'the end'); process.kill(process.pid, 'SIGKILL'); }, 500);`,
    );
    expect(lines.map((l) => [l.msg, l.n])).toEqual([
      ['before', 1],
      ['the end', 2],
    ]);
  });
});
