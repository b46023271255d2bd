import type pino from 'pino';

/** Where a batch of lines goes: the log worker's stream (a pino transport). */
export interface LineSink {
  write(chunk: string): unknown;
  flush?(cb: (err?: Error) => void): void;
  flushSync?(): void;
  once?(event: 'close', listener: () => void): unknown;
}

export interface LineBatcherOptions {
  /** A batch is handed over once it holds this many characters. */
  maxChars?: number;
  /** ...or this long after its first line, whichever comes first. */
  maxDelayMs?: number;
}

/**
 * Hands the log worker its lines in batches. Each hand-over wakes the worker thread, and a wake-up (the futex, the
 * context switch, the worker's turn of its event loop) cost more CPU than the line itself: at 5,000 reads a second,
 * one wake-up per event-loop turn was about a tenth of a read's CPU (docs/speed.md). A line waits at most
 * `maxDelayMs` of real time, which only postpones its write to stdout; `flushSync` and the process's exit write
 * what is held, so a clean stop, a `fatal` line and a crash that runs the exit handlers lose nothing. A SIGKILL loses
 * what is held, up to `maxDelayMs` of lines (one event-loop turn's before).
 */
export class LineBatcher implements pino.DestinationStream {
  #sink: LineSink | undefined;
  readonly #makeSink: (() => LineSink) | undefined;
  readonly #maxChars: number;
  readonly #maxDelayMs: number;
  #held = '';
  #timer: NodeJS.Timeout | undefined;
  readonly #onExit = () => this.flushSync();

  /**
   * `sink`, or the function that makes it on the first line: a worker thread started before the server listens
   * delays its first answer, so a server that has logged nothing yet has no log worker.
   */
  constructor(sink: LineSink | (() => LineSink), { maxChars = 32 * 1024, maxDelayMs = 20 }: LineBatcherOptions = {}) {
    if (typeof sink === 'function') this.#makeSink = sink;
    else this.#attach(sink);
    this.#maxChars = maxChars;
    this.#maxDelayMs = maxDelayMs;
    // Ahead of every other exit handler, the sink's own among them (pino ends its worker there): the held lines
    // reach the sink before it ends.
    process.prependListener('exit', this.#onExit);
  }

  #attach(sink: LineSink): LineSink {
    this.#sink = sink;
    // A sink that has closed takes nothing more; the listener would only keep the batcher and the sink alive.
    sink.once?.('close', () => process.off('exit', this.#onExit));
    return sink;
  }

  write(line: string): boolean {
    if (!this.#sink) this.#attach(this.#makeSink!());
    this.#held += line;
    if (this.#held.length >= this.#maxChars) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), this.#maxDelayMs).unref();
    return true;
  }

  /** Hands what is held to the sink now; `cb` (pino's `logger.flush(cb)`) runs once the sink has written it. */
  flush(cb?: (err?: Error) => void): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#held !== '') {
      const chunk = this.#held;
      this.#held = '';
      this.#sink!.write(chunk);
    }
    if (cb) {
      if (this.#sink?.flush) this.#sink.flush(cb);
      else cb();
    }
  }

  /** Hands what is held to the sink and waits until the sink has written it (pino calls this after `fatal`). */
  flushSync(): void {
    this.flush();
    this.#sink?.flushSync?.();
  }

  /** Stops watching the process's exit (a logger that is thrown away, as in tests). */
  close(): void {
    this.flush();
    process.off('exit', this.#onExit);
  }
}
