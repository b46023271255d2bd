import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterEach, describe, expect } from 'vitest';
import { runListen, startListener, type Listener, type ListenOptions } from '../../src/cli/listen.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { newCard, putWebhookConfig } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { behaviours, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { ensureBuilt, spawnCli, startSandbox, stop } from '../helpers/cli-process.js';
import { startPartnerApp } from '../helpers/partner-app.js';
import { call } from '../helpers/http-call.js';

let sb: TestSandbox;
let acct: AccountHandle;
let secret: string;
let dir: string;
let lines: string[];
let listener: Listener | undefined;

it.beforeEach(({ sb: s, acct: a }) => {
  [sb, acct] = [s, a];
  dir = mkdtempSync(join(tmpdir(), 'listen-'));
  lines = [];
});
afterEach(async () => {
  await listener?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `listen` and points the account's webhook at it. */
async function listen(extra: Partial<ListenOptions> = {}) {
  const configured = await putWebhookConfig(sb, acct.apiKey, { url: 'http://127.0.0.1:1/placeholder' });
  secret = configured.body.secret;
  listener = await startListener({
    secret,
    port: 0,
    host: '127.0.0.1',
    headerPrefix: 'Service',
    toleranceSeconds: 300,
    now: () => Math.floor(sb.wall.ms / 1000),
    out: (l) => lines.push(l),
    ...extra,
  });
  await putWebhookConfig(sb, acct.apiKey, { url: `${listener.url}/webhooks` });
}

/** A new card, its card.created sent (the clock's advance runs the due delivery). */
async function cardCreated(): Promise<string> {
  const cardId = await newCard(sb, acct.apiKey, 50);
  await sb.advance(acct.apiKey, 0);
  return cardId;
}

describe('card-sandbox listen', () => {
  it('verifies, prints and records (JSON lines) each event, and acknowledges it', async () => {
    const jsonl = join(dir, 'events.jsonl');
    await listen({ jsonlFile: jsonl });
    const cardId = await cardCreated();
    const [attempt] = (await sb.post(acct.apiKey, '/sandbox/v1/webhook/deliveries', {})).body.deliveries;
    expect(attempt).toMatchObject({ statusCode: 200, error: null });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/ card\.created {2}evt_[0-9A-Za-z]{24}$/);
    const [record] = readFileSync(jsonl, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(record).toMatchObject({ verified: true, violations: [], event: { type: 'card.created', data: { cardId } } });
  });

  it('answers 400 to a bad signature and prints the reason', async () => {
    await listen();
    const body = '{"id":"evt_x","type":"card.frozen","created":1,"data":{}}';
    const t = Math.floor(sb.wall.ms / 1000);
    const res = await request(listener!.url)
      .post('/')
      .set('Content-Type', 'application/json')
      .set('Service-Signature', signatureHeader('whsec_wrong', t, body))
      .send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'signature_mismatch' });
    expect(lines[0]).toMatch(/✗ rejected: signature_mismatch/);
    const missing = await request(listener!.url).post('/').set('Content-Type', 'application/json').send(body);
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'malformed_header' });
  });

  it('forwards verified events with their headers and answers with the app status, so the sandbox retries', async () => {
    const app: Receiver = await startReceiver();
    try {
      app.queue.push(behaviours.status(500));
      await listen({ forwardTo: app.url });
      await cardCreated();
      expect(app.received).toHaveLength(1);
      expect(app.received[0].headers['service-event-type']).toBe('card.created');
      expect(app.received[0].headers['service-signature']).toMatch(/^t=\d+,v1=/);
      expect(lines[0]).toMatch(/-> http:\/\/127\.0\.0\.1:\d+\/hooks \[500\]$/);
      const [attempt] = (await sb.post(acct.apiKey, '/sandbox/v1/webhook/deliveries', {})).body.deliveries;
      expect(attempt).toMatchObject({ statusCode: 500, nextRetryAt: expect.any(String) });
    } finally {
      await app.close();
    }
  });

  it('runs the contract validator hook on each verified event and prints its violations', async () => {
    const seen: unknown[] = [];
    await listen({
      validate: (envelope) => {
        seen.push(envelope);
        return [{ path: '/data/status', message: 'example violation' }];
      },
    });
    await cardCreated();
    expect(seen).toHaveLength(1);
    expect(lines[1]).toBe('    ✗ contract: {"path":"/data/status","message":"example violation"}');
  });

  it('exits 2 without a whsec_ secret', async () => {
    expect(await runListen(['--port', '0'])).toBe(2);
    expect(await runListen(['--secret', 'nope'])).toBe(2);
  });
});

describe('card-sandbox listen --base-url --api-key (the compiled CLI configures the webhook itself)', () => {
  const KEY = 'sk_test_listen_cli_key_0000000000000000000';
  const post = (url: string, path: string, body: unknown, method = 'POST') => call(url, KEY, method, path, body);

  const listenAndForward = (baseUrl: string, appUrl: string) =>
    spawnCli(['listen', '--base-url', baseUrl, '--api-key', KEY, '--forward-to', appUrl, '--port', '0']);

  it('points the webhook at itself, prints the secret once, and forwards deliveries the package verifier accepts', async () => {
    ensureBuilt();
    const sandbox = await startSandbox(KEY);
    const app = await startPartnerApp();
    const listenProc = listenAndForward(sandbox.url, app.url);
    try {
      const [, secret] = await listenProc.waitForOutput(/Webhook secret[^:]*: (whsec_\S+)/);
      const [, listenUrl] = await listenProc.waitForOutput(/Ready: listening on (http:\S+),/);
      app.secret = secret;
      const config = (await call(sandbox.url, KEY, 'GET', '/v1/webhook')).body;
      expect(config).toMatchObject({ url: `${listenUrl}/webhooks`, enabled: true, secretPrefix: secret.slice(0, 14) });
      await post(sandbox.url, '/sandbox/v1/wallet/seed', { amount: 50 });
      const card = await post(sandbox.url, '/v1/card/create', { amount: 20, currency: 'USDT' });
      await post(sandbox.url, '/v1/card/freeze', { cardId: card.body.cardId });
      const [created, frozen] = await app.waitFor(2);
      for (const d of [created, frozen]) expect(d).toMatchObject({ verified: true });
      expect(JSON.parse(frozen.rawBody)).toMatchObject({ type: 'card.frozen', data: { cardId: card.body.cardId } });
      expect(frozen.headers['service-event-type']).toBe('card.frozen');
      await listenProc.waitForOutput(/card\.frozen {2}evt_\w+ {2}-> http:\/\/127\.0\.0\.1:\d+\/hooks \[200\]/);
      expect(listenProc.stdout().split(secret).length - 1).toBe(1);
    } finally {
      await stop(listenProc);
      await app.close();
      await stop(sandbox);
    }
  });

  it('on an account that already has a webhook, rotates the secret to learn it and says so', async () => {
    ensureBuilt();
    const sandbox = await startSandbox(KEY);
    const app = await startPartnerApp();
    const first = await post(sandbox.url, '/v1/webhook', { url: 'http://127.0.0.1:1/old' }, 'PUT');
    expect(first.body.secret).toMatch(/^whsec_/);
    const listenProc = listenAndForward(sandbox.url, app.url);
    try {
      await listenProc.waitForOutput(/secret was rotated/);
      const [, secret] = await listenProc.waitForOutput(/Webhook secret[^:]*: (whsec_\S+)/);
      expect(secret).not.toBe(first.body.secret);
      app.secret = secret;
      await listenProc.waitForOutput(/Ready/);
      await post(sandbox.url, '/sandbox/v1/wallet/seed', { amount: 50 });
      await post(sandbox.url, '/v1/card/create', { amount: 20, currency: 'USDT' });
      const [created] = await app.waitFor(1);
      expect(created.verified).toBe(true);
    } finally {
      await stop(listenProc);
      await app.close();
      await stop(sandbox);
    }
  });
});
