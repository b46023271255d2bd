import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { onPostgres } from '../helpers/postgres.js';
import { ADMIN_TOKEN, createTestSandbox, type TestSandbox, sqliteOf } from '../helpers/sandbox.js';

// Secrets may be shown to the partner exactly where the spec says (a key at creation, sensitiveInfo, the
// webhook secret once, the OTP in the webhook and the 3DS helper), and nowhere else: not in the log output,
// not in the database file.

interface Captured {
  text: string;
  records: Record<string, unknown>[];
}

function captureLogs(): { destination: { write(line: string): void }; captured: Captured } {
  const captured: Captured = { text: '', records: [] };
  return {
    captured,
    destination: {
      write(line: string) {
        captured.text += line;
        captured.records.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  };
}

/**
 * The log's own figures: a 3-digit CVV drawn as 200 or 404, or an OTP equal to the process id, is that figure and no
 * leak, so a value under these keys is not compared with the short secrets (the test drew such a CVV now and then).
 */
const FIGURES = new Set(['status', 'pid', 'latencyMs']);

/** Every string and number found anywhere in a value, but for the log's own figures. */
function leaves(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string' || typeof value === 'number') out.push(String(value));
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) if (!FIGURES.has(key)) leaves(v, out);
  }
  return out;
}

let dir: string;
let sb: TestSandbox;
let logs: Captured;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-redaction-'));
  const { destination, captured } = captureLogs();
  logs = captured;
  sb = createTestSandbox({
    config: { dbPath: join(dir, 'sandbox.db'), allowHttpWebhooks: true },
    logger: createLogger({ level: 'debug', destination }),
  });
});
afterEach(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The database as it sits on disk: main file plus whatever the WAL still holds after a checkpoint. */
function databaseBytes(): string {
  sqliteOf(sb.deps).pragma('wal_checkpoint(TRUNCATE)');
  const file = join(dir, 'sandbox.db');
  const parts = [readFileSync(file)];
  if (existsSync(file + '-wal')) parts.push(readFileSync(file + '-wal'));
  return Buffer.concat(parts).toString('latin1');
}

describe('secrets never reach the logs or the database file', () => {
  it('keeps API keys, the admin token, PAN, CVV, webhook secrets and OTPs out of debug logs and the DB bytes', async ({
    skip,
  }) => {
    const { apiKey } = await sb.account({ balance: 1000 });
    const webhookSecrets: string[] = [];
    // Webhook secrets, when the webhooks module is part of this build; configured first so every event below is
    // delivered (to a closed port: failed attempts are logged too).
    const webhook = await sb.request
      .put('/v1/webhook')
      .set('X-API-KEY', apiKey)
      .send({ url: 'http://127.0.0.1:9/hook', enabled: true, deliver3dsCode: true });
    if (webhook.status === 200) {
      const { secret } = webhook.body as { secret: string };
      expect(secret).toMatch(/^whsec_/);
      webhookSecrets.push(secret);
      const rotated = await sb.post(apiKey, '/v1/webhook/rotate-secret', {});
      if (rotated.status === 200) webhookSecrets.push((rotated.body as { secret: string }).secret);
    }
    const created = await sb.post(
      apiKey,
      '/v1/card/create',
      { amount: 100, currency: 'USDT' },
      { 'Idempotency-Key': 'k1' },
    );
    expect(created.status).toBe(200);
    const { cardId } = created.body as { cardId: string };
    expect((await sb.post(apiKey, '/v1/card/deposit', { cardId, amount: 50, currency: 'USDT' })).status).toBe(200);
    await sb.advance(apiKey, 10);
    const sensitive = await sb.post(apiKey, '/v1/card/sensitiveInfo', { cardId });
    expect(sensitive.status).toBe(200);
    const { cardNo, cvv } = sensitive.body as { cardNo: string; cvv: string };

    // Where careless clients put secrets: the query string, and bodies that fail to parse or validate.
    await sb.post(apiKey, `/v1/wallet/assetList?apiKey=${apiKey}&pan=${cardNo}`, {});
    await sb.post(apiKey, '/v1/card/detail', `{"cardId": "${cardNo}", "cvv": "${cvv}"`);
    await sb.post(apiKey, '/v1/card/detail', { cardId: cardNo, cvv });
    await sb.post(`${apiKey}x`, '/v1/wallet/assetList', {});

    const secrets = [apiKey, ADMIN_TOKEN, cardNo, ...webhookSecrets];
    const shortSecrets = [cvv];

    const threeDs = await sb.post(apiKey, '/sandbox/v1/card/3ds', {
      cardId,
      type: 'payment',
      amount: 10,
      currency: 'USD',
    });
    if (threeDs.status === 200) shortSecrets.push((threeDs.body as { otp: string }).otp);
    // Runs every due delivery and a few retries.
    await sb.advance(apiKey, 3600);

    // The log proves something was logged: one access line per request with id, method, path, status, latency.
    const access = logs.records.filter((r) => r.msg === 'request completed');
    expect(access.length).toBeGreaterThanOrEqual(8);
    expect(access[0]).toMatchObject({ method: 'POST', path: '/admin/v1/accounts', status: 201 });
    for (const r of access) {
      expect(r.requestId).toMatch(/^req_/);
      expect(typeof r.latencyMs).toBe('number');
    }
    const debugHeaders = logs.records.find((r) => r.msg === 'request received' && r.path === '/v1/card/create');
    expect(debugHeaders?.headers).toMatchObject({ 'x-api-key': '[REDACTED]', 'idempotency-key': 'k1' });

    for (const s of secrets) expect(logs.text).not.toContain(s);
    const logValues = new Set(logs.records.flatMap((r) => leaves(r)));
    for (const s of shortSecrets) expect(logValues.has(s)).toBe(false);
    expect(logs.text).not.toMatch(/"(cvv|otp)":"\d/);

    if (onPostgres)
      return skip('searches the bytes of a SQLite database file; a PostgreSQL sandbox keeps no file here');
    const db = databaseBytes();
    for (const s of secrets) expect(db).not.toContain(s);
    for (const s of shortSecrets) {
      expect(db).not.toMatch(new RegExp(`"(cvv|otp)"\\s*:\\s*"?${s}`));
      expect(db).not.toContain(cardNo + cvv);
    }
  });

  it('masks secrets handed to the logger by mistake: headers, bodies, error objects and messages', () => {
    const { destination, captured } = captureLogs();
    const logger = createLogger({ level: 'debug', destination });
    const pan = '4549240000000002'; // Luhn-valid
    const err = Object.assign(new Error(`card ${pan} failed with whsec_abcdefABCDEF0123456789`), {
      request: { headers: { 'X-API-KEY': 'plain-key-1', Authorization: 'Bearer tok-1' } },
    });
    logger.error(
      { err, body: { cardNo: pan, cvv: '123', otp: '654321', nested: { webhookSecret: 'abc' } } },
      `key sk_sandbox_${'a'.repeat(40)}`,
    );
    logger.child({ config: { adminToken: 'tok-2', apiKey: 'plain-key-2' } }).info({}, 'started');
    for (const s of [
      'plain-key-1',
      'plain-key-2',
      'tok-1',
      'tok-2',
      pan,
      'whsec_abcdef',
      'sk_sandbox_aaaa',
      '"123"',
      '654321',
      'abc"',
    ]) {
      expect(captured.text).not.toContain(s);
    }
    expect(captured.text).toContain('************0002');
    expect(captured.records[0]!.body).toMatchObject({
      cvv: '[REDACTED]',
      otp: '[REDACTED]',
      nested: { webhookSecret: '[REDACTED]' },
    });
  });

  it('leaves card ids, request ids and timestamps alone', () => {
    const { destination, captured } = captureLogs();
    const logger = createLogger({ level: 'info', destination });
    logger.info({ cardId: '2026060117803181873402', atMs: 1790000000000 }, 'card 2026060117803181873402');
    expect(captured.records[0]).toMatchObject({ cardId: '2026060117803181873402', atMs: 1790000000000 });
  });
});
