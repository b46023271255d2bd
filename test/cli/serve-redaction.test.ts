import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, serveOn, stop } from '../helpers/cli-process.js';

// `card-sandbox serve` hands its own secrets (the admin token, the ready account's key) to the redaction, so they are
// masked by value wherever a client puts them: under a header of any name, in the path, in the query, in a body,
// at debug level too; in the log and in the request log.

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'sandbox-serve-redaction-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ADMIN = 'op-token-3f9a1c77e2';
const KEY = 'ci-key-0123456789abcdef';

describe('card-sandbox serve: the server secrets are redacted by value', () => {
  it('keeps the admin token and the ready key out of the debug log and the request log, whatever the header', async () => {
    const db = join(dir, 'sandbox.db');
    const proc = await serveOn(db, ['--log-level', 'debug'], { SANDBOX_ADMIN_TOKEN: ADMIN, SANDBOX_API_KEY: KEY });
    let requestId: string | undefined;
    try {
      const res = await fetch(`${proc.url}/v1/wallet/assetList?note=${ADMIN}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-API-KEY': KEY,
          'X-Operator': ADMIN,
          'X-Trace': `held ${KEY} here`,
        },
        body: JSON.stringify({ remark: `token ${ADMIN}`, again: KEY }),
      });
      expect(res.status).toBe(200);
      requestId = res.headers.get('x-request-id')!;
      const record = await fetch(`${proc.url}/sandbox/v1/requests/get`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-KEY': KEY },
        body: JSON.stringify({ requestId }),
      });
      const text = await record.text();
      expect(record.status).toBe(200);
      expect(text).not.toContain(ADMIN);
      expect(text).not.toContain(KEY);
      expect(JSON.parse(text).request.headers['x-operator']).toBe('[REDACTED]');
    } finally {
      await stop(proc);
    }
    const lines = proc.stdout();
    expect(lines).toContain(requestId);
    expect(lines).toContain('"x-operator":"[REDACTED]"');
    expect(lines).not.toContain(ADMIN);
    expect(lines).not.toContain(KEY);
    const bytes = readFileSync(db).toString('latin1');
    expect(bytes).not.toContain(ADMIN);
    expect(bytes).not.toContain(KEY);
  });

  it('keeps them out of stdout in any case and encoding: beside a bad escape, %-encoded, upper-cased, base64, as a header name', async () => {
    const env = { SANDBOX_ADMIN_TOKEN: ADMIN, SANDBOX_API_KEY: KEY };
    const proc = await serveOn(':memory:', ['--log-level', 'debug'], env);
    const percentAll = (text: string) =>
      [...Buffer.from(text)].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
    const paths = [
      `/v1/${encodeURIComponent(ADMIN)}%ZZ`,
      `/v1/a%ZZ${percentAll(KEY)}`,
      `/v1/${ADMIN.toUpperCase()}`,
      `/v1/%C0%AF${percentAll(ADMIN)}`,
    ];
    try {
      for (const path of paths) {
        const res = await fetch(proc.url + path, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            [ADMIN]: 'as a header name',
            'X-Basic': `Basic ${Buffer.from(`user:${KEY}`).toString('base64')}`,
            'X-Encoded': percentAll(ADMIN),
          },
          body: '{}',
        });
        expect(res.status).toBe(401);
      }
    } finally {
      await stop(proc);
    }
    const lines = proc.stdout();
    const completed = lines.split('\n').filter((l) => l.includes('"request completed"') && l.includes('"status":401'));
    expect(completed).toHaveLength(paths.length);
    for (const secret of [ADMIN, KEY]) {
      for (const form of [
        secret,
        secret.toUpperCase(),
        percentAll(secret),
        Buffer.from(`user:${KEY}`).toString('base64'),
      ]) {
        expect(lines.toLowerCase()).not.toContain(form.toLowerCase());
      }
    }
  });
});
