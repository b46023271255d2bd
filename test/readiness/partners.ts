import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeServer, listen } from '../helpers/loopback.js';
import { post as postTo } from '../helpers/http-call.js';

// Two partner integrations, written as partners write them, for the readiness tests: a GOOD one (a receiver that
// verifies signatures with node:crypto exactly as the spec's verifier does, refuses stale timestamps, deduplicates by
// event id but still acknowledges a duplicate; a client that keys its writes and retries them with the same key and
// body, honours Retry-After, stops on 4009) and a CARELESS one (a receiver that accepts everything; a client with a
// new key per retry, no key on top-ups, retrying at once, looping on 4009). The sandbox's code is not used here: these
// are the oracle.

export interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, any>;
}

/** What the partner's code calls to wait; the tests move the sandbox's fake wall clock instead of sleeping. */
type Sleep = (ms: number) => Promise<void>;

interface Transport {
  baseUrl: string;
  apiKey: string;
  sleep: Sleep;
}

/** One POST; a dropped connection is a thrown error, as fetch reports it. */
function post(t: Transport, path: string, body: unknown, key?: string): Promise<Answer> {
  return postTo(t.baseUrl, t.apiKey, path, body, key === undefined ? {} : { 'Idempotency-Key': key });
}

export class OutOfInventory extends Error {}

/** What both clients share: the transport, and a read asked again after a 429 once the client has reacted to it. */
abstract class Client {
  readonly t: Transport;

  constructor(t: Transport) {
    this.t = t;
  }

  async read(path: string, body: unknown = {}): Promise<Answer> {
    for (;;) {
      const answer = await post(this.t, path, body);
      if (answer.status !== 429) return answer;
      await this.throttled(answer);
    }
  }

  protected abstract throttled(answer: Answer): Promise<void>;
}

/** The integration a careful partner ships. */
export class GoodClient extends Client {
  /** After a 429, wait its Retry-After. */
  protected async throttled(answer: Answer): Promise<void> {
    await this.t.sleep(Number(answer.headers.get('retry-after') ?? '1') * 1000);
  }

  /** A write: one key per operation, kept for every retry of the same body (lost answer, 5xx, 429). */
  async write(path: string, body: unknown): Promise<Answer> {
    const key = randomUUID();
    for (let attempt = 1; ; attempt++) {
      let answer: Answer | undefined;
      try {
        answer = await post(this.t, path, body, key);
      } catch {
        // The answer was lost: the write may have happened. Only the same key and body make the retry safe.
      }
      if (answer && answer.status < 500 && answer.status !== 429) return answer;
      if (attempt === 5) throw new Error(`${path} kept failing`);
      const retryAfter = answer?.headers.get('retry-after');
      await this.t.sleep(retryAfter ? Number(retryAfter) * 1000 : 100 * 2 ** attempt);
    }
  }

  /** card/create: 4009 is for a human (no retry); 4010 is retried with a growing delay. */
  async createCard(amount: number): Promise<Answer> {
    for (let attempt = 1; ; attempt++) {
      const answer = await this.write('/v1/card/create', { amount, currency: 'USDT' });
      if (answer.body.code === 4009) throw new OutOfInventory('card inventory is out: ask the issuer');
      if (answer.body.code !== 4010 || attempt === 3) return answer;
      await this.t.sleep(5000 * 2 ** attempt);
    }
  }

  deposit(cardId: string, amount: number): Promise<Answer> {
    return this.write('/v1/card/deposit', { cardId, amount, currency: 'USDT' });
  }
}

/** The integration that breaks a launch. */
export class CarelessClient extends Client {
  /** After a 429, ask again at once. */
  protected async throttled(): Promise<void> {}

  /** A new key on every attempt, retried at once. */
  async write(path: string, body: unknown): Promise<Answer> {
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await post(this.t, path, body, randomUUID());
        if (answer.status < 500 || attempt === 5) return answer;
      } catch (err) {
        if (attempt === 5) throw err;
      }
    }
  }

  /** Retries 4009 and 4010 at once, ten times. */
  async createCard(amount: number): Promise<Answer> {
    let answer = await this.write('/v1/card/create', { amount, currency: 'USDT' });
    for (let i = 0; i < 10 && (answer.body.code === 4009 || answer.body.code === 4010); i++) {
      answer = await this.write('/v1/card/create', { amount, currency: 'USDT' });
    }
    return answer;
  }

  /** Top-ups without a key. */
  deposit(cardId: string, amount: number): Promise<Answer> {
    return post(this.t, '/v1/card/deposit', { cardId, amount, currency: 'USDT' });
  }
}

export interface PartnerReceiver {
  url: string;
  /** Event ids processed (once each). */
  processed: string[];
  /** The events processed, in the order they arrived: what the partner's ledger is folded from. */
  events: { type: string; data: Record<string, unknown> }[];
  /** Every request it got: the status it answered. */
  answered: number[];
  close(): Promise<void>;
}

/** A receiver on loopback; `handle` decides the status from the raw body and the headers. */
async function receiver(handle: (raw: Buffer, req: IncomingMessage) => number): Promise<PartnerReceiver> {
  const r = { processed: [], answered: [], events: [] } as unknown as PartnerReceiver;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = handle(Buffer.concat(chunks), req);
      r.answered.push(status);
      res.statusCode = status;
      res.end(status < 300 ? 'ok' : 'refused');
    });
  });
  r.url = `${await listen(server)}/hooks`;
  r.close = () => closeServer(server);
  return r;
}

/**
 * The spec's verifier (Events, rule 4): HMAC-SHA256 keyed with the secret over `<t>.<raw body>`, hex in v1, compared
 * in constant time over the raw bytes before any parsing, with a 300 s tolerance on `t` against `nowSeconds()`.
 */
export function goodReceiver(secret: () => string, nowSeconds: () => number): Promise<PartnerReceiver> {
  let r: PartnerReceiver;
  const promise = receiver((raw, req) => {
    const header = String(req.headers['service-signature'] ?? '');
    const fields = Object.fromEntries(header.split(',').map((kv) => kv.split('=') as [string, string]));
    const t = Number(fields.t);
    const expected = createHmac('sha256', secret()).update(`${fields.t}.`).update(raw).digest();
    const given = Buffer.from(fields.v1 ?? '', 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 400;
    if (!Number.isInteger(t) || Math.abs(nowSeconds() - t) > 300) return 400;
    const event = JSON.parse(raw.toString('utf8')) as PartnerReceiver['events'][number] & { id: string };
    // Processed once; a duplicate is still acknowledged, or the sender retries it for hours.
    if (!r.processed.includes(event.id)) {
      r.processed.push(event.id);
      r.events.push(event);
    }
    return 200;
  });
  return promise.then((made) => (r = made));
}

/** Accepts everything, signed or not. */
export function carelessReceiver(): Promise<PartnerReceiver> {
  return receiver(() => 200);
}
