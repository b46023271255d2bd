import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { behaviours, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { putWebhookConfig } from '../helpers/core.js';

let dir: string;
let rx: Receiver;
let sb: TestSandbox | undefined;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'webhooks-restart-'));
  rx = await startReceiver();
});
afterEach(async () => {
  await sb?.close();
  await rx.close();
  rmSync(dir, { recursive: true, force: true });
});

const open = () =>
  createTestSandbox({ config: { dbPath: join(dir, 'sandbox.db'), secret: 'restart-test-server-secret' } });

describe('deliveries survive a restart (state in SQLite)', () => {
  it('a pending retry is still due after the server is closed and reopened', async () => {
    sb = open();
    const acct = await sb.account({ balance: 100 });
    await putWebhookConfig(sb, acct.apiKey, { url: rx.url });
    rx.queue.push(behaviours.status(500));
    await sb.post(acct.apiKey, '/v1/card/create', { amount: 50, currency: 'USDT' });
    await sb.advance(acct.apiKey, 0);
    await sb.close();

    sb = open();
    await sb.advance(acct.apiKey, 60);
    expect(rx.received).toHaveLength(2);
    expect(rx.received[1].body.id).toBe(rx.received[0].body.id);
  });

  it('an attempt killed on the wire (its job row already claimed) is re-scheduled at start-up', async () => {
    sb = open();
    const acct = await sb.account({ balance: 100 });
    await putWebhookConfig(sb, acct.apiKey, { url: rx.url });
    await sb.post(acct.apiKey, '/v1/card/create', { amount: 50, currency: 'USDT' });
    // What a SIGKILL during the attempt leaves behind: the JobRunner deleted the job row before sending, and
    // the outcome was never recorded.
    expect(await sb.deps.store.run("DELETE FROM jobs WHERE kind = 'webhook.attempt'")).toBe(1);
    await sb.close();

    sb = open();
    // The start-up repair runs as the store is prepared (deps.ready), no longer inside the constructor.
    await sb.deps.ready;
    expect(await sb.deps.store.value("SELECT COUNT(*) FROM jobs WHERE kind = 'webhook.attempt'")).toBe(1);
    await sb.advance(acct.apiKey, 0);
    expect(rx.received).toHaveLength(1);
    const events = (await sb.post(acct.apiKey, '/sandbox/v1/events', {})).body.events;
    expect(events[0].delivery.state).toBe('delivered');
  });

  it('an attempt overdue after downtime runs once, and the next delay counts from when it ran', async () => {
    sb = open();
    const acct = await sb.account({ balance: 100 });
    await putWebhookConfig(sb, acct.apiKey, { url: rx.url });
    rx.fallback = behaviours.status(500);
    await sb.post(acct.apiKey, '/v1/card/create', { amount: 50, currency: 'USDT' });
    await sb.advance(acct.apiKey, 0);
    await sb.close();

    sb = open();
    sb.wall.ms += 3 * 3600_000; // the server was down for three hours of running account time
    await sb.advance(acct.apiKey, 0);
    expect(rx.received).toHaveLength(2);
    const [latest] = (await sb.post(acct.apiKey, '/sandbox/v1/webhook/deliveries', {})).body.deliveries;
    expect(latest.at).toBe(new Date(sb.wall.ms).toISOString());
    expect(latest.nextRetryAt).toBe(new Date(sb.wall.ms + 300_000).toISOString());
  });
});
