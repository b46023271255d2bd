import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { DomainError, invalidField } from '../domain/kernel/errors.js';

// Reading a request body within bounds, as it arrives: a body past the size limit or nesting deeper than the JSON
// bounds is refused at the chunk that crosses the bound, so an abusive body is never buffered whole, decoded or
// parsed. Every tenant shares one event loop; this keeps a refused body's cost to its first chunks.

export interface BodyBounds {
  maxBytes: number;
  maxDepth: number;
  /** Arrays, objects and elements (commas): bounds JSON.parse's work on a flat body. */
  maxValues: number;
}

const [QUOTE, BACKSLASH, COMMA, OPEN_BRACKET, CLOSE_BRACKET, OPEN_BRACE, CLOSE_BRACE] = [...'"\\,[]{}'].map((c) =>
  c.charCodeAt(0),
);

/**
 * Counts nesting and values in JSON bytes outside strings, chunk by chunk (its state carries over a chunk
 * boundary, inside a string or after a backslash). UTF-8 is scanned as bytes: no byte of a multi-byte character is
 * ASCII, so a quote or bracket byte is always that character. Malformed text is left to JSON.parse to refuse.
 */
class JsonCostScan {
  private depth = 0;
  private values = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly bounds: Pick<BodyBounds, 'maxDepth' | 'maxValues'>) {}

  /** Why the text so far is too costly to parse, or undefined; it stops at the first byte over a bound. */
  feed(bytes: Uint8Array): string | undefined {
    const { maxDepth, maxValues } = this.bounds;
    let { depth, values, inString, escaped } = this;
    let problem: string | undefined;
    for (let i = 0; i < bytes.length; i++) {
      const ch = bytes[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (ch === BACKSLASH) escaped = true;
        else if (ch === QUOTE) inString = false;
      } else if (ch === QUOTE) {
        inString = true;
      } else if (ch === OPEN_BRACKET || ch === OPEN_BRACE) {
        if (++depth > maxDepth) {
          problem = `request body nests deeper than ${maxDepth} levels`;
          break;
        }
        if (++values > maxValues) {
          problem = `request body holds more than ${maxValues} values`;
          break;
        }
      } else if (ch === CLOSE_BRACKET || ch === CLOSE_BRACE) {
        depth--;
      } else if (ch === COMMA && ++values > maxValues) {
        problem = `request body holds more than ${maxValues} values`;
        break;
      }
    }
    Object.assign(this, { depth, values, inString, escaped });
    return problem;
  }
}

/** The 413 of a body past `maxBytes`, naming the bound. */
export function payloadTooLarge(maxBytes: number): DomainError {
  return new DomainError('PAYLOAD_TOO_LARGE', `Request body is larger than ${maxBytes / (1024 * 1024)} MiB`);
}

const decoder = new TextDecoder();

/**
 * The body as text, read within `bounds`: past `maxBytes` a 413, past a JSON bound a 400 naming it, each thrown at
 * the chunk that crosses the bound. The rest of a refused body is discarded unread as it arrives (Node's own way
 * with a body no handler reads, up to a bound), so the connection stays usable and the client sees the answer. Reads Node's
 * request stream directly when there is one (the served app), else the web Request's stream (`app.request()`).
 */
export async function readBoundedBody(c: Context, bounds: BodyBounds): Promise<string> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const chunks = new BoundedChunks(bounds);
  if (incoming && typeof incoming.on === 'function' && !incoming.readableDidRead) {
    const spend = c.get('spendBodyBytes') as SpendBodyBytes | undefined;
    try {
      await readIncoming(incoming, chunks, bounds.maxBytes, spend);
    } catch (err) {
      // Past its budget the client gets its 429 and the connection is closed: the rest is not read at all.
      if (err instanceof DomainError && err.errorName === 'RATE_LIMITED') {
        c.header('Connection', 'close');
        c.header('Retry-After', '1');
      }
      throw err;
    }
  } else {
    const body = c.req.raw.body;
    if (body) {
      const reader = body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const refusal = chunks.add(value);
        if (refusal) {
          await reader.cancel().catch(() => {});
          throw refusal;
        }
      }
    }
  }
  return decoder.decode(chunks.joined());
}

class BoundedChunks {
  private readonly list: Uint8Array[] = [];
  private bytes = 0;
  private readonly scan: JsonCostScan;

  constructor(private readonly bounds: BodyBounds) {
    this.scan = new JsonCostScan(bounds);
  }

  /** Takes one chunk; returns the error that refuses the body, if this chunk crosses a bound. */
  add(chunk: Uint8Array): Error | undefined {
    this.bytes += chunk.length;
    if (this.bytes > this.bounds.maxBytes) return payloadTooLarge(this.bounds.maxBytes);
    const tooCostly = this.scan.feed(chunk);
    if (tooCostly !== undefined) return invalidField(tooCostly);
    this.list.push(chunk);
    return undefined;
  }

  joined(): Uint8Array {
    return this.list.length === 1 ? this.list[0] : Buffer.concat(this.list, this.bytes);
  }
}

/**
 * Drops the rest of a refused body as it arrives, so the client can read the answer and reuse the connection;
 * past another `maxBytes` (only a chunked body can go on: a declared length is at most the bound), or past the
 * key's budget in hosted mode (the dropped bytes are spent like read ones), the client is not listening, and its
 * connection is closed rather than read for as long as it cares to send.
 */
function discardRest(incoming: IncomingMessage, maxBytes: number, spend: SpendBodyBytes | undefined): void {
  let dropped = 0;
  const onData = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped <= maxBytes && (spend === undefined || spend(chunk.length))) return;
    incoming.off('data', onData);
    incoming.socket?.destroy();
  };
  incoming.on('data', onData);
  incoming.once('end', () => incoming.off('data', onData));
}

/** The client went away before its whole body was read: its doing, answered 499 and logged at info (access-log.ts). */
export class ClientGoneError extends Error {
  constructor() {
    super('Client connection prematurely closed.');
  }
}

/** The rate limit's spending of a key's budget for body bytes read (hosted mode, a body without a length). */
type SpendBodyBytes = (bytes: number) => boolean;

function readIncoming(
  incoming: IncomingMessage,
  chunks: BoundedChunks,
  maxBytes: number,
  spend: SpendBodyBytes | undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (error?: Error) => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onData = (chunk: Buffer) => {
      if (spend && !spend(chunk.length)) {
        settle(new DomainError('RATE_LIMITED', 'Too many requests: the request body is past the API key budget'));
        incoming.off('data', onData);
        incoming.pause();
        return;
      }
      const refusal = chunks.add(chunk);
      if (!refusal) return;
      settle(refusal);
      discardRest(incoming, maxBytes, spend);
    };
    const onEnd = () => settle();
    const onError = (error: Error) => settle(error);
    const onClose = () => (incoming.readableEnded ? settle() : settle(new ClientGoneError()));
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
    if (incoming.readableEnded) settle();
    else if (incoming.destroyed) onClose();
  });
}
