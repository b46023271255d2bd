import type { CapturedRequest } from './captured-request.js';

// Pending request-log records wait for their batch here, encoded in reused buffers outside the JS heap. Held as
// strings, every record of a busy key lived long enough to be copied by two young-generation collections and then
// marked and swept in the old one; that holding was most of the log's cost on small reads (bench: a server that
// captured records and dropped them cost 0-5 % more than one without the log, one that held them 10-25 %). A
// buffer written and read in place costs an encode per record and a decode per record written, and nothing while
// the record waits.

/**
 * The buffer is made of chunks of this size, allocated as a batch needs them and kept for the next: growing one
 * buffer by doubling copied everything before it (bench: up to 40 MB per batch of card/list records). A record that
 * is not written at once (bodies up to 64 KiB, headers up to Node's 16 KiB) needs at most half of one.
 */
const CHUNK_BYTES = 1024 * 1024;
/** Past this, the log writes its batch early (the bound on what pending records hold in the buffer). */
export const MAX_BYTES = 64 * 1024 * 1024;

// A string field is its UTF-8 byte length (int32) then its bytes; these lengths stand for the two non-strings.
const NULL = -1;
const UNDEFINED = -2;
/** Fixed part: atMs and latencyMs (float64), status (uint16). */
const FIXED = 8 + 8 + 2;
const STRING_FIELDS = 7;

export class RequestArena {
  private readonly chunks: Buffer[] = [];
  /** The chunk being filled; everything before it, and before `end` in it, is pending. */
  private current = 0;
  private end = 0;

  constructor(
    private readonly maxBytes = MAX_BYTES,
    private readonly chunkBytes = CHUNK_BYTES,
  ) {}

  /** Encodes a record; answers its offset, or -1 when it does not fit before the next batch is written. */
  put(r: CapturedRequest): number {
    const bound =
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
          (r.responseBody?.length ?? 0));
    const buf = this.room(bound);
    if (!buf) return -1;
    const start = this.end;
    let at = buf.writeDoubleLE(r.atMs, start);
    at = buf.writeDoubleLE(r.latencyMs, at);
    at = buf.writeUInt16LE(r.status, at);
    at = putString(buf, at, r.requestId);
    at = putString(buf, at, r.method);
    at = putString(buf, at, r.path);
    at = putString(buf, at, r.keyId);
    at = putString(buf, at, r.requestHeaders);
    at = putString(buf, at, r.requestBody);
    at = putString(buf, at, r.responseHeaders);
    this.end = putString(buf, at, r.responseBody);
    return this.current * this.chunkBytes + start;
  }

  /** The record `put` stored at `offset` (valid until `clear`). */
  get(offset: number, accountId: string): CapturedRequest {
    const buf = this.chunks[Math.floor(offset / this.chunkBytes)]!;
    const start = offset % this.chunkBytes;
    const cursor = { at: start + FIXED };
    return {
      accountId,
      atMs: buf.readDoubleLE(start),
      latencyMs: buf.readDoubleLE(start + 8),
      status: buf.readUInt16LE(start + 16),
      requestId: getString(buf, cursor)!,
      method: getString(buf, cursor)!,
      path: getString(buf, cursor)!,
      keyId: getString(buf, cursor) ?? null,
      requestHeaders: getString(buf, cursor)!,
      requestBody: getString(buf, cursor),
      responseHeaders: getString(buf, cursor)!,
      responseBody: getString(buf, cursor),
    };
  }

  /** Every pending record was written or dropped: the space is reused (the chunks are kept). */
  clear(): void {
    this.current = 0;
    this.end = 0;
  }

  /** The chunk with `bytes` free after `end` (the next one when this one is full); undefined past maxBytes. */
  private room(bytes: number): Buffer | undefined {
    if (bytes > this.chunkBytes) return undefined;
    const chunk = this.chunks[this.current];
    if (chunk && this.end + bytes <= chunk.length) return chunk;
    const next = chunk ? this.current + 1 : this.current;
    if ((next + 1) * this.chunkBytes > this.maxBytes) return undefined;
    // allocUnsafeSlow: its own memory, not a slice of Node's shared pool; every byte read was written first.
    if (!this.chunks[next]) this.chunks[next] = Buffer.allocUnsafeSlow(this.chunkBytes);
    this.current = next;
    this.end = 0;
    return this.chunks[next];
  }
}

function putString(buf: Buffer, at: number, s: string | null | undefined): number {
  if (s === null || s === undefined) return buf.writeInt32LE(s === null ? NULL : UNDEFINED, at);
  // The length bounds the write; without it Node passes the rest of the chunk, and the write took five times as long.
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
