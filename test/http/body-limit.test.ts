import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect } from 'vitest';
import { sandboxTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let acct: AccountHandle;

it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

/** A POST whose body is sent in chunks without a Content-Length (Transfer-Encoding: chunked). */
async function chunkedPost(path: string, chunks: string[]): Promise<{ status: number; body: unknown }> {
  await new Promise<void>((r) => (sb.server.listening ? r() : sb.server.listen(0, '127.0.0.1', () => r())));
  const { port } = sb.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request(
      { port, path, method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': acct.apiKey } },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

describe('request body limit (docs/design.md section 3: over 1 MiB is 413 {code: 400})', () => {
  it('refuses a declared Content-Length over 1 MiB from the header alone', async () => {
    const res = await sb.post(acct.apiKey, '/v1/card/list', JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ code: 400, message: 'Request body is larger than 1 MiB' });
  });

  it('refuses a chunked body once it passes 1 MiB', async () => {
    const res = await chunkedPost('/v1/card/list', ['{"pad":"', 'x'.repeat(600 * 1024), 'x'.repeat(600 * 1024), '"}']);
    expect(res).toEqual({ status: 413, body: { code: 400, message: 'Request body is larger than 1 MiB' } });
  });

  it('reads a chunked body under the limit', async () => {
    const res = await chunkedPost('/v1/card/list', ['{', '}']);
    expect(res).toEqual({ status: 200, body: { cardList: [] } });
  });
});
