import { post } from '../helpers/http-call.js';

// Concurrent partner traffic whose every keyed call is recorded, so that after a crash each one can be
// retried and its final answer compared with what the server kept.

export interface Answer {
  status: number;
  body: any;
  replayed: boolean;
}

export interface KeyedOp {
  path: '/v1/card/create' | '/v1/card/deposit';
  key: string;
  body: Record<string, unknown>;
  /** Undefined while no answer arrived (the connection was cut by the kill). */
  answer?: Answer;
}

/** A small seeded PRNG (mulberry32), so a failing round can be replayed from its printed seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A POST with the key; its status, body, and whether the server replayed a stored answer. */
export async function call(
  url: string,
  apiKey: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await post(url, apiKey, path, body, headers);
  return { status: res.status, body: res.body, replayed: res.headers.get('idempotent-replayed') === 'true' };
}

export interface TrafficOptions {
  url: string;
  apiKey: string;
  /** Cards to deposit to; grows with every acknowledged create. */
  cards: string[];
  random: () => number;
  keyPrefix: string;
  workers: number;
  /** Extra unkeyed traffic (authorize / clear) run by every other worker, when the simulation exists. */
  extra?: (random: () => number) => Promise<void>;
}

/** Runs workers until `stop` resolves (or every connection is refused); returns every keyed op sent. */
export async function runTraffic(opts: TrafficOptions, stop: Promise<void>): Promise<KeyedOp[]> {
  const ops: KeyedOp[] = [];
  let stopped = false;
  void stop.then(() => (stopped = true));
  let n = 0;
  const worker = async (w: number) => {
    while (!stopped) {
      try {
        if (opts.extra && w % 2 === 1 && opts.random() < 0.5) {
          await opts.extra(opts.random);
          continue;
        }
        const create = opts.cards.length < 5 || opts.random() < 0.35;
        const amount = 1 + Math.floor(opts.random() * 20);
        const op: KeyedOp = create
          ? { path: '/v1/card/create', key: `${opts.keyPrefix}-${++n}`, body: { amount, currency: 'USDT' } }
          : {
              path: '/v1/card/deposit',
              key: `${opts.keyPrefix}-${++n}`,
              body: { cardId: opts.cards[Math.floor(opts.random() * opts.cards.length)], amount, currency: 'USDT' },
            };
        ops.push(op);
        op.answer = await call(opts.url, opts.apiKey, op.path, op.body, { 'idempotency-key': op.key });
        if (create && op.answer.status === 200) opts.cards.push(op.answer.body.cardId);
      } catch {
        // The server died under this request: its op stays without an answer and is retried after restart.
        if (stopped) return;
        await new Promise((r) => setTimeout(r, 5));
      }
    }
  };
  await Promise.all(Array.from({ length: opts.workers }, (_, w) => worker(w)));
  return ops;
}
