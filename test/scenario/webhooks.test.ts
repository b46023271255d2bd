import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Receiver } from '../../src/scenario/receiver.js';
import { loadAll, runScenarios } from '../../src/scenario/runner.js';
import { closeServer, listen } from '../helpers/loopback.js';

const SECRET = 'whsec_test0123456789abcdefghijklmnopq';
const sign = (body: string, secret = SECRET, t = Math.floor(Date.now() / 1000)) =>
  `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;

async function deliver(url: string, envelope: object, signature?: string, eventId = 'evt_1') {
  const body = JSON.stringify(envelope);
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'Service-Signature': signature ?? sign(body),
      'Service-Event-Id': eventId,
      'Service-Event-Type': (envelope as { type: string }).type,
    },
    body,
  });
  return res.status;
}

describe('the built-in webhook receiver', () => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = new Receiver();
    await receiver.start();
  });
  afterEach(() => receiver.close());

  it('verifies the HMAC-SHA256 signature over "<t>.<raw body>" with the whole secret, and the Event-Id header', async () => {
    const inbox = receiver.inbox();
    inbox.secret = SECRET;
    expect(await deliver(inbox.url, { id: 'evt_1', type: 'card.created', created: 1, data: {} })).toBe(200);
    expect(
      await deliver(inbox.url, { id: 'evt_1', type: 'card.created', created: 1, data: {} }, undefined, 'evt_9'),
    ).toBe(200);
    expect(await deliver(inbox.url, { id: 'evt_2', type: 'card.created', created: 1, data: {} }, sign('{}'))).toBe(200);
    const old = Math.floor(Date.now() / 1000) - 301;
    const body = JSON.stringify({ id: 'evt_3', type: 'card.created', created: 1, data: {} });
    await fetch(inbox.url, { method: 'POST', headers: { 'Service-Signature': sign(body, SECRET, old) }, body });
    expect(inbox.deliveries.map((d) => d.problem)).toEqual([
      undefined,
      'Event-Id header "evt_9" is not the envelope id "evt_1"',
      'signature does not match the body',
      'signature timestamp outside the 300 s tolerance',
    ]);
  });

  it('answers as scripted, then 200 again', async () => {
    const inbox = receiver.inbox();
    inbox.secret = SECRET;
    inbox.respondWith(500, 2);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await deliver(inbox.url, { type: 'card.created', data: {} }));
    expect(statuses).toEqual([500, 500, 200]);
  });

  it('answers 404 on an unknown inbox', async () => {
    expect(await deliver(receiver.inbox().url.replace(/hooks\/.*/, 'hooks/nope'), { type: 'x' })).toBe(404);
  });
});

/**
 * A stand-in sandbox speaking just enough of the API (operator account, clock, webhook PUT, and a helper that
 * emits signed events) to exercise expectWebhook without the webhooks module.
 */
async function fakeSandbox(secret: string): Promise<{ server: Server; url: string }> {
  let hookUrl = '';
  const server = createServer(
    (req, res) =>
      void (async () => {
        let raw = '';
        for await (const c of req) raw += c;
        const body = raw ? JSON.parse(raw) : {};
        const json = (status: number, value: unknown) =>
          res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value));
        if (req.url === '/admin/v1/accounts') return json(201, { accountId: 'acc_1', apiKey: 'k' });
        if (req.url === '/sandbox/v1/clock') return json(200, { code: 0, message: 'ok' });
        if (req.url === '/v1/webhook' && req.method === 'PUT') {
          hookUrl = body.url;
          return json(200, {
            configured: true,
            url: body.url,
            enabled: true,
            secret,
            secretPrefix: secret.slice(0, 14),
          });
        }
        if (req.url === '/sandbox/v1/emit') {
          for (const [i, e] of (body.events as object[]).entries()) {
            const text = JSON.stringify({ id: `evt_${i}`, created: 1, ...e });
            await fetch(hookUrl, {
              method: 'POST',
              headers: {
                'Service-Signature': sign(text, SECRET),
                'Service-Event-Id': `evt_${i}`,
                'Service-Event-Type': (e as { type: string }).type,
              },
              body: text,
            });
          }
          return json(200, { code: 0, message: 'ok' });
        }
        json(404, { code: 404, message: 'no route' });
      })(),
  );
  return { server, url: await listen(server) };
}

describe('expectWebhook', () => {
  let fake: { server: Server; url: string };
  let dir: string;
  afterEach(async () => {
    await closeServer(fake.server);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function run(secret: string, text: string) {
    fake = await fakeSandbox(secret);
    dir = mkdtempSync(join(tmpdir(), 'hook-'));
    writeFileSync(join(dir, 'w.yaml'), text);
    const loaded = await loadAll([join(dir, 'w.yaml')], dir);
    if (!loaded.ok) throw loaded.errors[0];
    return (await runScenarios(loaded.scenarios, { baseUrl: fake.url, adminToken: 't' }))[0];
  }

  const emit = `
  - sandbox: emit
    body:
      events:
        - { type: card.created, data: { cardId: "1", binId: VISA-EFI-454924, status: ACTIVE } }
        - { type: card.3ds.requested, data: { type: payment, merchant: SHOP, amount: "10", currency: USD, cardId: "1", last4: "1234", otp: "123456" } }
        - { type: card.created, data: { cardId: "2", binId: VISA-EFI-454924, status: ACTIVE } }`;

  it('matches type and data, claims each delivery once, counts exactly and captures from the envelope', async () => {
    const r = await run(
      SECRET,
      `name: hooks
webhook: { deliver3dsCode: true }
steps:${emit}
  - expectWebhook: { type: card.created, count: 2 }
  - expectWebhook: { type: card.3ds.requested, data: { otp: { $regex: "^\\\\d{6}$" } } }
    capture: { otp: $.data.otp }
  - expectWebhook: { type: card.created, count: 0, within: 100ms }
  - sandbox: emit
    body: { events: [{ type: card.frozen, data: { cardId: "{{otp}}" } }] }
  - expectWebhook: { type: card.frozen, data: { cardId: "123456" } }
`,
    );
    expect(r.steps.filter((s) => !s.ok).map((s) => s.failure)).toEqual([]);
  });

  it('fails with what was received when nothing matches within the wait', async () => {
    const r = await run(
      SECRET,
      `name: hooks\nsteps:${emit}\n  - expectWebhook: { type: card.created, data: { cardId: "3" }, within: 200ms }\n`,
    );
    const failed = r.steps.find((s) => !s.ok)!;
    expect(failed.line).toBe(9);
    expect(failed.failure!.message).toBe('expected at least 1 card.created webhook(s) with matching data, received 0');
    expect(failed.failure!.diff).toEqual([{ path: '$.data.cardId', expected: '"3"', actual: '"1"' }]);
  });

  it('fails the file when a delivery is signed with another secret', async () => {
    const r = await run(
      'whsec_another_secret_000000000000000',
      `name: hooks\nsteps:${emit}\n  - expectWebhook: { type: card.created }\n`,
    );
    expect(r.ok).toBe(false);
    expect(r.steps.at(-1)!.failure!.message).toBe('webhook delivery is wrong: signature does not match the body');
  });
});
