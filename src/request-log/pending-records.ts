import type { RecordRow } from '../store/request-log.js';
import type { CapturedRequest } from './captured-request.js';

// One account's request-log records waiting for their batch (request-log.ts): its newest `keep`, encoded in a
// circular buffer outside the JS heap that reuses the bytes of the records it pushes out.
// Held as strings, every record of a busy key lived long enough to be copied by two young-generation collections and
// then marked and swept in the old one, most of the log's cost. Encoded into bytes, a record costs nothing while it
// waits, but where the bytes go matters as much: appended through one buffer for the whole batch, each answer went to
// memory untouched for seconds and writing it cost far more inside the server than in a loop; bytes written recently
// are cheap to write again. The circle keeps the bytes of a busy account at about 1,000 records, reused in turn
// (the figures: bench/code-figures.md).

/** Space for a record that waits: the fixed part, a length per string, at most 3 UTF-8 bytes per UTF-16 unit. */
const FIXED = 8 + 8 + 2 + 1; // atMs and latencyMs (float64), status (uint16), fromConsole (uint8)
const STRING_FIELDS = 9;
// A string field is its UTF-8 byte length (int32) then its bytes; these lengths stand for the two non-strings.
const NULL = -1;
const UNDEFINED = -2;
/** The smallest buffer; it doubles as the account's records need, up to `maxBytes`. */
const FIRST_BYTES = 16 * 1024;

export type Pending = CapturedRequest | RecordRow;
export type PutResult = 'added' | 'replaced' | 'full';

export class PendingRecords {
  private buf: Buffer | undefined;
  /** Per slot of the queue: where its record starts and ends in `buf`, or -1 for a row kept as it is. */
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private readonly rows: (RecordRow | undefined)[];
  private first = 0;
  private count = 0;
  /** Where the next record goes. */
  private head = 0;

  constructor(
    private readonly keep: number,
    private readonly maxBytes: number,
  ) {
    this.starts = new Int32Array(keep);
    this.ends = new Int32Array(keep);
    this.rows = new Array<RecordRow | undefined>(keep);
  }

  get size(): number {
    return this.count;
  }

  /** Bytes held for this account (0 before its first encoded record). */
  get bytes(): number {
    return this.buf?.length ?? 0;
  }

  /**
   * Encodes a record as the newest. 'replaced': the oldest was pushed out to keep `keep`; 'full': there is no room
   * within `maxBytes` until the batch is written (nothing was added).
   */
  put(r: CapturedRequest): PutResult {
    const bound = boundOf(r);
    if (bound > this.maxBytes) return 'full';
    const replaced = this.count === this.keep;
    if (replaced) this.dropOldest();
    let at = this.place(bound);
    if (at < 0 && this.grow(bound)) at = this.place(bound);
    if (at < 0) return 'full';
    const end = encode(this.buf!, at, r);
    this.push(at, end, undefined);
    this.head = end;
    return replaced ? 'replaced' : 'added';
  }

  /** Adds a record already made a row (a large one, redacted and cut at once). */
  putRow(row: RecordRow): PutResult {
    const replaced = this.count === this.keep;
    if (replaced) this.dropOldest();
    this.push(-1, -1, row);
    return replaced ? 'replaced' : 'added';
  }

  /** Every pending record, oldest first, decoded; the queue is then empty (the buffer is kept for the next batch). */
  take(accountId: string): Pending[] {
    const out: Pending[] = [];
    for (let i = 0; i < this.count; i++) {
      const slot = (this.first + i) % this.keep;
      out.push(this.starts[slot]! < 0 ? this.rows[slot]! : decode(this.buf!, this.starts[slot]!, accountId));
    }
    this.rows.fill(undefined);
    this.first = this.count = this.head = 0;
    return out;
  }

  private push(start: number, end: number, row: RecordRow | undefined): void {
    const slot = (this.first + this.count) % this.keep;
    this.starts[slot] = start;
    this.ends[slot] = end;
    this.rows[slot] = row;
    this.count++;
  }

  private dropOldest(): void {
    this.rows[this.first] = undefined;
    this.first = (this.first + 1) % this.keep;
    this.count--;
  }

  /** The start of the oldest encoded record, or -1 when none is held. */
  private tail(): number {
    for (let i = 0; i < this.count; i++) {
      const start = this.starts[(this.first + i) % this.keep]!;
      if (start >= 0) return start;
    }
    return -1;
  }

  /** Where `bytes` fit without touching a held record: after the newest, or from the start when that wraps. */
  private place(bytes: number): number {
    const buf = this.buf;
    if (!buf) return -1;
    const tail = this.tail();
    if (tail < 0) {
      this.head = 0;
      return bytes <= buf.length ? 0 : -1;
    }
    if (tail < this.head) {
      if (this.head + bytes <= buf.length) return this.head;
      return bytes <= tail ? 0 : -1;
    }
    return this.head + bytes <= tail ? this.head : -1;
  }

  /**
   * A buffer twice as large (or more; at maxBytes, as large), the held records copied to its start in order; false
   * when they and `bytes` do not fit in maxBytes.
   */
  private grow(bytes: number): boolean {
    let held = 0;
    for (let i = 0; i < this.count; i++) {
      const slot = (this.first + i) % this.keep;
      if (this.starts[slot]! >= 0) held += this.ends[slot]! - this.starts[slot]!;
    }
    let size = this.buf ? this.buf.length * 2 : FIRST_BYTES;
    while (size < held + bytes) size *= 2;
    size = Math.min(size, this.maxBytes);
    if (held + bytes > size) return false;
    // allocUnsafeSlow: its own memory, not a slice of Node's shared pool; every byte read was written first.
    const grown = Buffer.allocUnsafeSlow(size);
    let at = 0;
    for (let i = 0; i < this.count; i++) {
      const slot = (this.first + i) % this.keep;
      const start = this.starts[slot]!;
      if (start < 0) continue;
      const end = this.ends[slot]!;
      this.buf!.copy(grown, at, start, end);
      this.starts[slot] = at;
      this.ends[slot] = at + end - start;
      at += end - start;
    }
    this.buf = grown;
    this.head = at;
    return true;
  }
}

function boundOf(r: CapturedRequest): number {
  return (
    FIXED +
    4 * STRING_FIELDS +
    3 *
      (r.requestId.length +
        r.method.length +
        r.path.length +
        (r.keyId?.length ?? 0) +
        r.requestHeaders.length +
        (r.requestBody?.length ?? 0) +
        r.responseHeaders.length +
        (r.responseBody?.length ?? 0) +
        (r.fault?.length ?? 0))
  );
}

/** Writes the record at `start`; answers where it ends. */
function encode(buf: Buffer, start: number, r: CapturedRequest): number {
  let at = buf.writeDoubleLE(r.atMs, start);
  at = buf.writeDoubleLE(r.latencyMs, at);
  at = buf.writeUInt16LE(r.status, at);
  at = buf.writeUInt8(r.fromConsole ? 1 : 0, at);
  at = putString(buf, at, r.requestId);
  at = putString(buf, at, r.method);
  at = putString(buf, at, r.path);
  at = putString(buf, at, r.keyId);
  at = putString(buf, at, r.requestHeaders);
  at = putString(buf, at, r.requestBody);
  at = putString(buf, at, r.responseHeaders);
  at = putString(buf, at, r.responseBody);
  return putString(buf, at, r.fault);
}

function decode(buf: Buffer, start: number, accountId: string): CapturedRequest {
  const cursor = { at: start + FIXED };
  return {
    accountId,
    atMs: buf.readDoubleLE(start),
    latencyMs: buf.readDoubleLE(start + 8),
    status: buf.readUInt16LE(start + 16),
    fromConsole: buf.readUInt8(start + 18) === 1,
    requestId: getString(buf, cursor)!,
    method: getString(buf, cursor)!,
    path: getString(buf, cursor)!,
    keyId: getString(buf, cursor) ?? null,
    requestHeaders: getString(buf, cursor)!,
    requestBody: getString(buf, cursor),
    responseHeaders: getString(buf, cursor)!,
    responseBody: getString(buf, cursor),
    fault: getString(buf, cursor) ?? null,
  };
}

function putString(buf: Buffer, at: number, s: string | null | undefined): number {
  if (s === null || s === undefined) return buf.writeInt32LE(s === null ? NULL : UNDEFINED, at);
  // The length bounds the write; without it Node passes the rest of the buffer, and the write took five times as long.
  const n = buf.write(s, at + 4, 3 * s.length, 'utf8');
  buf.writeInt32LE(n, at);
  return at + 4 + n;
}

function getString(buf: Buffer, cursor: { at: number }): string | null | undefined {
  const n = buf.readInt32LE(cursor.at);
  cursor.at += 4;
  if (n === NULL) return null;
  if (n === UNDEFINED) return undefined;
  const s = buf.toString('utf8', cursor.at, cursor.at + n);
  cursor.at += n;
  return s;
}
