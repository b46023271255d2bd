import type { ServerResponse } from 'node:http';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { accountOwnedTables } from '../../src/store/account-purge.js';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

// A child sandbox deleted while one of its webhook attempts is on the wire: when the receiver answers, the
// account is gone, and the attempt must leave no row behind (nothing would ever read or delete it).

let sb: TestSandbox;
let rx: Receiver;
afterEach(async () => {
  await rx?.close();
  await sb?.close();
});

/** A child with a webhook pointed at a receiver that holds the next delivery until `answer` is called. */
async function childWithHeldDelivery() {
  sb = createTestSandbox();
  rx = await startReceiver();
  const parent = await sb.account({ balance: 100 });
  const child = (await sb.post(parent.apiKey, '/sandbox/v1/sandboxes/create', { balance: 50 })).body as {
    accountId: string;
    apiKey: string;
  };
  const put = await request(sb.server)
    .put('/v1/webhook')
    .set('X-API-KEY', child.apiKey)
    .set('Content-Type', 'application/json')
    .send(JSON.stringify({ url: rx.url }));
  expect(put.status).toBe(200);
  let held!: ServerResponse;
  const arrived = new Promise<void>((resolve) => {
    rx.queue.push((_req, res) => {
      held = res;
      resolve();
    });
  });
  return { parent, child, arrived, answer: () => held.end('ok') };
}

async function rowsOf(accountId: string): Promise<Record<string, number>> {
  const counts: [string, number][] = [];
  for (const t of await accountOwnedTables(sb.deps.db)) {
    counts.push([
      t,
      (await sb.deps.store.value<number>(`SELECT COUNT(*) FROM ${t} WHERE account_id = ?`, [accountId]))!,
    ]);
  }
  return Object.fromEntries(counts.filter(([, n]) => n !== 0));
}

describe('a child sandbox deleted while a webhook attempt is in flight', () => {
  it('leaves no attempt row once a scheduled delivery answers, and the advance that ran it answers 404, not 500', async () => {
    const { parent, child, arrived, answer } = await childWithHeldDelivery();
    await sb.post(child.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
    // The clock advance runs the due attempt and answers once the receiver has (`then` sends the request now).
    const advancing = sb.post(child.apiKey, '/sandbox/v1/clock', { advanceSeconds: 0 }).then((res) => res);
    await arrived;
    const deleted = await sb.post(parent.apiKey, '/sandbox/v1/sandboxes/delete', { accountId: child.accountId });
    expect(deleted.status).toBe(200);
    answer();
    // The advance cannot finish on an account that is gone: a 404 naming it, never a 500.
    const advanced = await advancing;
    expect([advanced.status, advanced.body]).toEqual([404, { code: 404, message: 'no such sandbox' }]);
    expect(rx.received).toHaveLength(1);
    expect(await rowsOf(child.accountId)).toEqual({});
  });

  it('leaves no attempt row once a manual redelivery answers', async () => {
    const { parent, child, arrived, answer } = await childWithHeldDelivery();
    rx.queue.unshift((_req, res) => res.end('ok')); // the scheduled delivery, answered at once
    await sb.post(child.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
    await sb.advance(child.apiKey, 0);
    const [event] = (await sb.post(child.apiKey, '/sandbox/v1/events', {})).body.events;
    const redelivering = sb
      .post(child.apiKey, '/sandbox/v1/webhook/redeliver', { eventId: event.id })
      .then((res) => res);
    await arrived;
    const deleted = await sb.post(parent.apiKey, '/sandbox/v1/sandboxes/delete', { accountId: child.accountId });
    expect(deleted.status).toBe(200);
    answer();
    expect((await redelivering).status).toBeLessThan(500);
    expect(rx.received).toHaveLength(2);
    expect(await rowsOf(child.accountId)).toEqual({});
  });
});
