import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, startSandbox, stop, type ServeProcess } from '../helpers/cli-process.js';
import { jsonLines, startProxyCli, type ProxyProcess } from '../helpers/proxy-process.js';

// Pointed at production, every output of the proxy (stdout, --report, --junit, --record) ends up in CI artifacts:
// none may hold a card number, a CVV, an API key or a webhook secret, whatever their shape. The proxy learns the
// keys it relays (a production key need not look like ours) and the secrets answers carry, and masks them by value.

let closers: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});
beforeAll(() => ensureBuilt(), 300_000);

/** Every output as one text per name, to search. */
function everyOutput(proxy: ProxyProcess): [string, string][] {
  return Object.entries(proxy.outputs());
}

describe('card-sandbox proxy redacts every output', () => {
  it('a sensitiveInfo flow against a sandbox whose key is not of our shape leaves no PAN, CVV, key or secret in stdout, report, JUnit or record', async () => {
    const key = `prodlike-${'k'.repeat(8)}${Date.now().toString(36)}Q7`;
    const admin = `prodadmin-${Date.now().toString(36)}-token`;
    const sandbox: ServeProcess & { url: string } = await startSandbox(key, {
      SANDBOX_SEED_BALANCE: '100',
      SANDBOX_ADMIN_TOKEN: admin,
    });
    closers.push(() => stop(sandbox));
    const proxy = await startProxyCli(sandbox.url);
    closers.push(() => stop(proxy));
    const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(proxy.url + path, {
        method,
        headers: { 'Content-Type': 'application/json', 'X-API-KEY': key, ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, any> };
    };

    const card = await send('POST', '/v1/card/create', { amount: 20, currency: 'USDT' });
    expect(card.status).toBe(200);
    const cardId = card.body.cardId as string;
    const info = await send('POST', '/v1/card/sensitiveInfo', { cardId });
    const { cardNo, cvv } = info.body as { cardNo: string; cvv: string };
    expect(cardNo).toMatch(/^\d{16}$/);
    // The secrets in other places a client may put them: the query, a header, a body field.
    await send(
      'POST',
      `/v1/card/detail?apiKey=${key}&pan=${cardNo}`,
      { cardId, note: `card ${cardNo}, cvv: ${cvv}`, cvv2: cvv },
      {
        'X-Note': `pan ${cardNo}`,
      },
    );
    const webhook = await send('PUT', '/v1/webhook', { url: 'http://127.0.0.1:9/hook' });
    const rotated = await send('POST', '/v1/webhook/rotate-secret');
    const created = await fetch(`${proxy.url}/admin/v1/accounts`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${admin}` },
      body: '{}',
    }).then((r) => r.json() as Promise<{ apiKey: string }>);
    // A key seen once is masked by value wherever it shows later: here in a path the 404 answer echoes, a body.
    await send('POST', `/v1/card/detail/${created.apiKey}`, { cardId });
    const echoed = await send('POST', `/v1/card/detail/${key}`, { cardId, memo: `from ${admin}` });
    expect(echoed.body.message).toContain(key);
    const secrets = {
      pan: cardNo,
      key,
      admin,
      'webhook secret': webhook.body.secret as string,
      'rotated secret': rotated.body.secret as string,
      'created key': created.apiKey,
    };
    for (const value of Object.values(secrets)) expect(value.length).toBeGreaterThan(8);

    await stop(proxy);
    const outputs = everyOutput(proxy);
    for (const [output, text] of outputs) {
      expect(text.length, output).toBeGreaterThan(0);
      for (const [what, value] of Object.entries(secrets)) {
        expect(text.includes(value), `${output} holds the ${what}`).toBe(false);
      }
      expect(text, `${output} holds the CVV under its name`).not.toMatch(new RegExp(`cvv\\W{0,6}${cvv}`, 'i'));
    }
    const record = jsonLines(proxy.outputs().record);
    for (const line of record) {
      expect(Object.keys(line.request.headers)).not.toContain('x-api-key');
      expect(Object.keys(line.request.headers)).not.toContain('authorization');
    }
    const recordedInfo = record.find((l) => l.path === '/v1/card/sensitiveInfo')!;
    expect(recordedInfo.response.body).toEqual({ cardNo: '[REDACTED]', cvv: '[REDACTED]', expiryDate: '[REDACTED]' });
    expect(jsonLines(proxy.outputs().report).map((l) => l.url)).toContain(
      '/v1/card/detail?apiKey=[REDACTED]&pan=[REDACTED]',
    );
  }, 300_000);

  it('a drifted sensitiveInfo answer ({"cardNo": 4549248271441391, "cvv": 249}) is reported without its values', async () => {
    const pan = 4549248271441391;
    const target: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res
          .writeHead(200, { 'Content-Type': 'application/json', 'X-Request-Id': 'req_drift' })
          .end(`{"cardNo": ${pan}, "cvv": 249, "expiryDate": "12/30"}`),
      );
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => target.close(resolve)));
    const proxy = await startProxyCli(`http://127.0.0.1:${(target.address() as AddressInfo).port}`, [
      '--max-requests',
      '1',
    ]);
    const res = await fetch(
      `${proxy.url}/v1/card/sensitiveInfo?apiKey=sk_sandbox_abcdefghijklmnopqrstuvwxyz0123&pan=${pan}`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-KEY': 'sk_sandbox_abcdefghijklmnopqrstuvwxyz0123' },
        body: JSON.stringify({ cardId: '2026060117803181873402' }),
      },
    );
    // The client gets the answer unchanged: redaction is for the proxy's outputs only.
    expect(await res.text()).toContain(String(pan));
    await proxy.exited;
    const out = proxy.outputs();
    expect(out.stdout).toContain('CONTRACT VIOLATION POST /v1/card/sensitiveInfo (response)\n  at:       /cardNo');
    expect(out.stdout).toContain('  at:       /cvv\n  contract: type "string"\n  seen:     "[REDACTED]"');
    for (const [output, text] of Object.entries(out)) {
      expect(text, output).not.toContain(String(pan));
      expect(text, output).not.toMatch(/seen:\s+249/);
      expect(text, output).not.toContain('abcdefghijklmnopqrstuvwxyz0123');
    }
  }, 120_000);

  it('a CVV in multipart and XML bodies, and a key relayed before an answer of 10,001 secret-named fields, stay out of every output', async () => {
    const key = `prodlike-${Date.now().toString(36)}-relayed-key`;
    const flood = JSON.stringify(
      Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`secret${i}`, `v${i}x`])),
    );
    const target: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const headers = { 'X-Request-Id': 'req_hostile' };
        if (req.url === '/v1/xml') {
          res.writeHead(200, { ...headers, 'Content-Type': 'application/xml' });
          return res.end('<card><number>1</number><card:cvv xmlns:card="x"><![CDATA[456]]></card:cvv></card>');
        }
        if (req.url === '/v1/flood')
          return res.writeHead(200, { ...headers, 'Content-Type': 'application/json' }).end(flood);
        res.writeHead(404, { ...headers, 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ code: 404, message: `No route for POST ${req.url}` }));
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => target.close(resolve)));
    const proxy = await startProxyCli(`http://127.0.0.1:${(target.address() as AddressInfo).port}`, [
      '--max-requests',
      '4',
    ]);
    const post = (path: string, body: string, contentType: string) =>
      fetch(proxy.url + path, { method: 'POST', headers: { 'Content-Type': contentType, 'X-API-KEY': key }, body });
    const boundary = 'b0undary';
    const multipart =
      `--${boundary}\r\nContent-Disposition: form-data; name="cardNo"\r\n\r\n4549248271441391\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="cvv"\r\n\r\n123\r\n--${boundary}--\r\n`;
    await post('/v1/upload', multipart, `multipart/form-data; boundary=${boundary}`);
    await post('/v1/xml', '<payment><cvc2>789</cvc2></payment>', 'application/xml');
    await post('/v1/flood', '{}', 'application/json');
    // After the flood, the key shows where no header name marks it: a path the target echoes.
    await post(`/v1/echo/${key}`, '{}', 'application/json');
    await proxy.exited;
    for (const [output, text] of Object.entries(proxy.outputs())) {
      expect(text.includes(key), `${output} holds the relayed key`).toBe(false);
      expect(text, output).not.toMatch(/name="cvv"\\r\\n\\r\\n123|name="cvv"\r\n\r\n123/);
      expect(text, output).not.toContain('4549248271441391');
      expect(text, output).not.toMatch(/>(?:<!\[CDATA\[)?(?:456|789)/);
    }
    const record = jsonLines(proxy.outputs().record);
    expect(record.map((l) => l.path)).toEqual(['/v1/upload', '/v1/xml', '/v1/flood', '/v1/echo/[REDACTED]']);
    expect(record[1]!.request.body).toBe('<payment><cvc2>[REDACTED]</cvc2></payment>');
  }, 120_000);
});
