import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

// What the proxy keeps of a body it streams: the first MiB for checking, and the size of the whole. A body past the
// limit is still relayed whole; it is only not checked (and not recorded).

/** Bytes of each body kept for checking and recording. */
const KEPT_BODY_BYTES = 1024 * 1024;

export class BodyCapture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  /** Bytes seen in all, kept or not. */
  size = 0;

  constructor(private readonly limit = KEPT_BODY_BYTES) {}

  add(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.kept >= this.limit) return;
    const part = this.kept + chunk.length > this.limit ? chunk.subarray(0, this.limit - this.kept) : chunk;
    this.chunks.push(part);
    this.kept += part.length;
  }

  /** The whole body, or undefined when it was larger than the limit (only its first part was kept). */
  whole(): Buffer | undefined {
    return this.size > this.limit ? undefined : Buffer.concat(this.chunks);
  }
}

/** A body as the checks and the recording see it: its text, or why there is none to judge. */
export type BodyView = { text: string } | { notChecked: string };

/**
 * The text of a kept body: decoded from gzip, deflate or br (an API behind a proxy answers compressed to a client
 * that accepts it), never past the same limit once decoded.
 */
export function bodyView(capture: BodyCapture, contentEncoding: string | undefined, limit = KEPT_BODY_BYTES): BodyView {
  const raw = capture.whole();
  if (raw === undefined) return { notChecked: `body of ${capture.size} bytes, over ${limit} bytes` };
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '' || raw.length === 0) return { text: raw.toString('utf8') };
  const options = { maxOutputLength: limit };
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return { text: gunzipSync(raw, options).toString('utf8') };
    if (encoding === 'deflate') return { text: inflateSync(raw, options).toString('utf8') };
    if (encoding === 'br') return { text: brotliDecompressSync(raw, options).toString('utf8') };
  } catch (err) {
    const code = (err as { code?: string }).code;
    return {
      notChecked:
        code === 'ERR_BUFFER_TOO_LARGE'
          ? `${encoding} body over ${limit} bytes once decoded`
          : `${encoding} body that does not decode`,
    };
  }
  return { notChecked: `body in an encoding the proxy does not decode (${encoding})` };
}
