import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { verifyWebhookSignature } from '../../src/webhooks/verify.js';
import { behaviours, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../helpers/wait.js';

let server: RunningServer | undefined;
let rx: Receiver | undefined;

afterEach(async () => {
  await rx?.close();
  await server?.close();
});

/** Resolves once `check` holds; the wall-clock timer of a real server is what is under test here. */
async function eventually(check: () => boolean): Promise<void> {
  await waitFor('the condition', check);
}

describe('a running server delivers on its own (no clock call needed)', () => {
  it("sends the event shortly after the request that caused it answered; a hung receiver never blocks requests, and holds the account's next delivery only until its attempt times out", async () => {
    server = await startServer({
      // An account's deliveries go out in order (design section 15): the next one waits for the hung attempt's end.
      config: {
        ...DEFAULT_CONFIG,
        dbPath: ':memory:',
        port: 0,
        adminToken: 'admin',
        bootstrapAccount: false,
        webhookTimeoutMs: 1_000,
      },
    });
    rx = await startReceiver();
    const acct = (
      await request(server.url)
        .post('/admin/v1/accounts')
        .set('Authorization', 'Bearer admin')
        .set('Content-Type', 'application/json')
        .send({ balance: 100, depositAddress: null })
    ).body;
    const put = await request(server.url)
      .put('/v1/webhook')
      .set('X-API-KEY', acct.apiKey)
      .set('Content-Type', 'application/json')
      .send({ url: rx.url });
    rx.queue.push(behaviours.hang);
    const created = await request(server.url)
      .post('/v1/card/create')
      .set('X-API-KEY', acct.apiKey)
      .set('Content-Type', 'application/json')
      .send({ amount: 20, currency: 'USDT' });
    expect(created.status).toBe(200);
    await eventually(() => rx!.received.length === 1);
    // The first attempt hangs on the wire; the partner API still answers at once.
    const freeze = await request(server.url)
      .post('/v1/card/freeze')
      .set('X-API-KEY', acct.apiKey)
      .set('Content-Type', 'application/json')
      .send({ cardId: created.body.cardId });
    expect(freeze.status).toBe(200);
    await eventually(() => rx!.received.some((r) => r.body.type === 'card.frozen'));
    expect(rx.received.map((r) => r.body.type).slice(0, 2)).toEqual(['card.created', 'card.frozen']);
    const frozen = rx.received.find((r) => r.body.type === 'card.frozen')!;
    const header = frozen.headers['service-signature'] as string;
    expect(verifyWebhookSignature({ rawBody: frozen.rawBody, header, secret: put.body.secret }).ok).toBe(true);
  });
});
