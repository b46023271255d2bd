import pino from 'pino';

// The server log's lines on stdout, written a few KiB at a time: one system call per request (a synchronous write of
// every access-log line) was a tenth of a read's CPU. Lines wait in an array, not in a growing string: sonic-boom's own
// buffering measures the whole buffered string in bytes on every write, which cost more than the writes it saved
// (bench/history.md). The writes themselves stay synchronous (sonic-boom retries a pipe that is full), so a line
// handed to the system is written before the process goes on.

/** Buffered characters past which the lines are written at once (about 20 access-log lines). */
const FLUSH_CHARS = 4096;
/** A quiet server's lines are written at most this long after they were logged. */
const IDLE_FLUSH_MS = 250;

const open = new Set<BufferedLines>();
let exitHook = false;

/**
 * A pino destination that holds lines and writes them to `fd` together: at FLUSH_CHARS, every IDLE_FLUSH_MS, on
 * `flush()`/`flushSync()` (pino calls flushSync after a `fatal` line) and when the process exits. A SIGKILL loses
 * at most the lines of the last IDLE_FLUSH_MS.
 */
export class BufferedLines implements pino.DestinationStream {
  private lines: string[] = [];
  private chars = 0;
  private readonly out: pino.DestinationStream & { flushSync(): void };
  private readonly timer: NodeJS.Timeout;

  constructor(fd = 1) {
    this.out = pino.destination({ dest: fd, sync: true });
    this.timer = setInterval(() => this.flushSync(), IDLE_FLUSH_MS);
    this.timer.unref();
    open.add(this);
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => open.forEach((b) => b.flushSync()));
    }
  }

  write(line: string): void {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= FLUSH_CHARS) this.flushSync();
  }

  /** Writes every held line now. */
  flushSync(): void {
    if (this.lines.length === 0) return;
    const text = this.lines.join('');
    this.lines = [];
    this.chars = 0;
    this.out.write(text);
  }

  /** pino's `logger.flush(cb)`: the lines are written by the time `cb` runs. */
  flush(cb?: (err?: Error) => void): void {
    this.flushSync();
    cb?.();
  }
}
