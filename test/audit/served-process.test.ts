import { createServer, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../src/webhooks/verify.js';
import { ensureBuilt, startServe, stop, type ServeProcess } from '../helpers/cli-process.js';
import { waitFor } from '../helpers/wait.js';
import { closeServer, listen } from '../helpers/loopback.js';
import { call } from '../helpers/http-call.js';

// Fidelity audit against the compiled server started exactly as a partner starts it (the brief's command line,
// plus debug logging so the secrecy check sees every line it could write), with a real receiver on loopback.

interface Got {
  headers: IncomingHttpHeaders;
  raw: string;
  body: { id: string; type: string; created: number; data: Record<string, unknown> };
}

let proc: ServeProcess & { url: string };
const got: Got[] = [];
let receiverUrl: string;
let closeReceiver: () => Promise<void>;

beforeAll(async () => {
  ensureBuilt();
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      got.push({ headers: req.headers, raw, body: JSON.parse(raw) });
      res.end('ok');
    });
  });
  receiverUrl = `${await listen(server)}/hook`;
  closeReceiver = () => closeServer(server);
  proc = await startServe([
    'serve',
    '--db',
    ':memory:',
    '--port',
    '0',
    '--admin-token',
    't',
    '--api-key',
    'k',
    '--seed-balance',
    '1000',
    '--allow-http-webhooks',
    '--log-level',
    'debug',
  ]);
});
afterAll(async () => {
  await stop(proc);
  await closeReceiver();
});

const request = (method: string, path: string, body?: unknown) => call(proc.url, 'k', method, path, body);

const until = <T>(find: () => T | undefined): Promise<T> => waitFor('a delivery', find);

describe('the served process, as a partner drives it', () => {
  it('delivers card.3ds.requested with the OTP to a deliver3dsCode endpoint, signed, and never writes the OTP, PAN or CVV to its logs', async () => {
    const put = await request('PUT', '/v1/webhook', { url: receiverUrl, enabled: true, deliver3dsCode: true });
    expect(put.status).toBe(200);
    const secret = put.body.secret as string;
    const card = await request('POST', '/v1/card/create', { amount: 50, currency: 'USDT' });
    expect(card.status).toBe(200);
    const cardId = card.body.cardId as string;
    const challenge = await request('POST', '/sandbox/v1/card/3ds', {
      cardId,
      type: 'payment',
      merchant: 'Shop',
      amount: 1.5,
    });
    expect(challenge.status).toBe(200);
    const sensitive = await request('POST', '/v1/card/sensitiveInfo', { cardId });

    const delivered = await until(() => got.find((g) => g.body.type === 'card.3ds.requested'));
    expect(Object.keys(delivered.body).sort()).toEqual(['created', 'data', 'id', 'type']);
    expect(delivered.body.data).toEqual({
      type: 'payment',
      merchant: 'Shop',
      amount: '1.5',
      currency: 'USD',
      cardId,
      last4: (sensitive.body.cardNo as string).slice(-4),
      otp: challenge.body.otp,
    });
    expect(delivered.headers['service-event-id']).toBe(delivered.body.id);
    expect(delivered.headers['service-event-type']).toBe('card.3ds.requested');
    expect(
      verifyWebhookSignature({ rawBody: delivered.raw, header: delivered.headers['service-signature'], secret }).ok,
    ).toBe(true);

    const events = await request('POST', '/sandbox/v1/events', { type: 'card.3ds.requested' });
    expect(JSON.stringify(events.body)).not.toContain(challenge.body.otp);
    // Wait for the delivery's own debug line before reading the logs.
    await waitFor('the webhook attempt log line', () => (proc.stdout() + proc.stderr()).includes('webhook attempt'));
    const output = proc.stdout() + proc.stderr();
    expect(output).toContain('webhook attempt');
    // Bounded by non-digits: a 6-digit code could otherwise match inside a millisecond timestamp by chance.
    for (const secretValue of [challenge.body.otp, sensitive.body.cardNo, secret]) {
      expect(output).not.toMatch(new RegExp(`(?<![0-9])${secretValue}(?![0-9])`));
    }
    expect(output).not.toMatch(new RegExp(`"cvv"\\s*:\\s*"${sensitive.body.cvv}"`));
  });
});
