import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/cli/event-samples.js';
import { NETWORK_CASES } from '../../src/cli/trigger-cases.js';
import { ensureBuilt, runCli, startSandbox, stop, type ServeProcess } from '../helpers/cli-process.js';

const KEY = 'sk_test_trigger_cli_key_000000000000000000';
let sandbox: ServeProcess & { url: string };
beforeAll(async () => {
  ensureBuilt();
  sandbox = await startSandbox(KEY);
});
afterAll(() => stop(sandbox));

async function events(type: string): Promise<{ id: string; type: string; data: Record<string, unknown> }[]> {
  const res = await fetch(`${sandbox.url}/sandbox/v1/events`, {
    method: 'POST',
    headers: { 'X-API-KEY': KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify({ type }),
  });
  return ((await res.json()) as { events: { id: string; type: string; data: Record<string, unknown> }[] }).events;
}

async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { 'X-API-KEY': KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

const sim = (path: string, body: unknown) => post(`/sandbox/v1/${path}`, body);

describe('card-sandbox trigger', () => {
  it('--list prints the seven event types, then the card network hard cases', async () => {
    const r = await runCli(['trigger', '--list']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([...EVENT_TYPES, ...NETWORK_CASES]);
  });

  it.each(EVENT_TYPES)('trigger %s makes the sandbox emit one event of that type and prints its id', async (type) => {
    const r = await runCli(['trigger', type, '--base-url', sandbox.url, '--api-key', KEY]);
    expect(r.code, r.stderr).toBe(0);
    const [, printedType, id] = /^(\S+) (evt_\w+) \(card (\S+)\)$/m.exec(r.stdout) ?? [];
    expect(printedType).toBe(type);
    const found = (await events(type)).find((e) => e.id === id);
    expect(found?.type).toBe(type);
  });

  /** What each hard case sends, as [type, status, previousStatus]: every transaction event after the first sight. */
  const SENT: Record<(typeof NETWORK_CASES)[number], string[]> = {
    increment: ['transaction.created PENDING -', 'transaction.updated PENDING PENDING'],
    'partial-reversal': ['transaction.created PENDING -', 'transaction.updated PENDING PENDING'],
    'partial-clearing': [
      'transaction.created PENDING -',
      'transaction.created CLEARED -',
      'transaction.updated PENDING PENDING',
    ],
    'over-clearing': ['transaction.created PENDING -', 'transaction.updated CLEARED PENDING'],
    'force-post': ['transaction.created CLEARED -'],
    'unlinked-refund': ['transaction.created PENDING -', 'transaction.updated REFUND PENDING'],
    'negative-balance': ['transaction.created CLEARED -'],
  };

  it.each(NETWORK_CASES)('trigger %s plays the hard case and prints the ids of the events it sent', async (name) => {
    const r = await runCli(['trigger', name, '--base-url', sandbox.url, '--api-key', KEY]);
    expect(r.code, r.stderr).toBe(0);
    const [, printed, ids, cardId] =
      /^(\S+) ((?:evt_\w+ ?)+) \(card (\S+), transaction txn_\w+\)$/m.exec(r.stdout) ?? [];
    expect(printed).toBe(name);
    const all = [...(await events('transaction.created')), ...(await events('transaction.updated'))];
    const sent = ids!.split(' ').map((id) => all.find((e) => e.id === id)!);
    expect(sent.map((e) => `${e.type} ${e.data.status} ${e.data.previousStatus ?? '-'}`)).toEqual(SENT[name]);
    expect(sent.every((e) => e.data.cardId === cardId)).toBe(true);
  });

  it('--card acts on the given card', async () => {
    const first = await runCli(['trigger', 'card.created', '--base-url', sandbox.url, '--api-key', KEY]);
    const cardId = /\(card (\S+)\)/.exec(first.stdout)![1];
    const r = await runCli(['trigger', 'card.frozen', '--base-url', sandbox.url, '--api-key', KEY, '--card', cardId]);
    expect(r.code, r.stderr).toBe(0);
    const id = /(evt_\w+)/.exec(r.stdout)![1];
    expect((await events('card.frozen')).find((e) => e.id === id)?.data.cardId).toBe(cardId);
  });

  /** The request log's records of the keyed writes (newest first). */
  async function keyedWrites(): Promise<{ path: string; idempotencyKey: string | null; replayed: boolean }[]> {
    const paths = ['create', 'deposit', 'freeze', 'unfreeze', 'cancel'].map((op) => `/v1/card/${op}`);
    const found: { path: string; idempotencyKey: string | null; replayed: boolean }[] = [];
    for (const path of paths) found.push(...((await sim('requests', { path, limit: 500 })).requests as never[]));
    return found;
  }

  it('sends every keyed write under an Idempotency-Key of its own, as readiness asks of a partner', async () => {
    for (const what of ['card.unfrozen', 'card.cancelled', 'negative-balance']) {
      expect((await runCli(['trigger', what, '--base-url', sandbox.url, '--api-key', KEY])).code).toBe(0);
    }
    const writes = await keyedWrites();
    expect(new Set(writes.map((w) => w.path))).toEqual(
      // trigger never tops a card up
      new Set(['/v1/card/create', '/v1/card/freeze', '/v1/card/unfreeze', '/v1/card/cancel']),
    );
    expect(writes.filter((w) => !w.idempotencyKey)).toEqual([]);
    expect(new Set(writes.map((w) => w.idempotencyKey)).size).toBe(writes.length);
  });

  it('sends a write whose answer was lost again under the same key: the card is made once', async () => {
    await sim('faults', { rules: [{ path: '/v1/card/create', dropResponse: true }] });
    const cardsBefore = ((await post('/v1/card/list', {})).cardList as unknown[]).length;
    const r = await runCli(['trigger', 'card.created', '--base-url', sandbox.url, '--api-key', KEY]);
    expect(r.code, r.stderr).toBe(0);
    expect(((await post('/v1/card/list', {})).cardList as unknown[]).length).toBe(cardsBefore + 1);
    const [retry, lost] = (await sim('requests', { path: '/v1/card/create', limit: 2 })).requests as {
      idempotencyKey: string;
      replayed: boolean;
    }[];
    expect(retry!.idempotencyKey).toBe(lost!.idempotencyKey);
    expect([lost!.replayed, retry!.replayed]).toEqual([false, true]);
  });

  it('a refused key stops at once with one message and exit 3; an unknown type is a usage error', async () => {
    const r = await runCli(['trigger', 'card.frozen', '--base-url', sandbox.url, '--api-key', 'sk_test_wrong']);
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/API key was refused/);
    expect((await runCli(['trigger', 'card.melted', '--base-url', sandbox.url, '--api-key', KEY])).code).toBe(2);
  });
});
