import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendWebhook } from '../../src/webhooks/sender.js';
import { createTestSandbox, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

// In hosted mode a webhook URL (and every address the sender dials) must be public unicast.

let sb: TestSandbox;
let acct: AccountHandle;
beforeAll(async () => {
  sb = createTestSandbox({ config: { mode: 'hosted' } });
  acct = await sb.account();
});
afterAll(() => sb.close());

const put = (url: string) =>
  request(sb.server)
    .put('/v1/webhook')
    .set('X-API-KEY', acct.apiKey)
    .set('Content-Type', 'application/json')
    .send(JSON.stringify({ url }));

const SPECIAL_USE: [url: string, range: string][] = [
  ['https://4294967295/', 'broadcast'], // 255.255.255.255 written as one number
  ['https://224.0.0.1/', 'multicast'],
  ['https://240.0.0.1/', 'reserved'],
  ['https://198.18.0.1/', 'reserved'], // benchmarking
  ['https://192.0.0.1/', 'reserved'], // IETF protocol assignments
  ['https://192.0.2.1/', 'reserved'], // TEST-NET-1
  ['https://0x7f.1/', 'loopback'], // 127.0.0.1 in hex shorthand
  ['https://[ff02::1]/', 'multicast'],
  ['https://[fec0::1]/', 'deprecatedSiteLocal'],
  ['https://[100::1]/', 'discard'],
  ['https://[2001:db8::1]/', 'reserved'],
  ['https://[2002:7f00:1::]/', '6to4'], // 127.0.0.1 inside
  ['https://[2001::7f00:1]/', 'teredo'],
  ['https://[::ffff:0:127.0.0.1]/', 'rfc6145'],
  ['https://[::ffff:127.0.0.1]/', 'loopback'], // IPv4-mapped: judged as its IPv4
  ['https://[::7f00:1]/', 'ipv4Compatible'],
  ['https://[64:ff9b::a00:1]/', 'rfc6052'], // NAT64 of 10.0.0.1
];

describe('hosted mode: a webhook URL must resolve to public unicast addresses only', () => {
  it.each(SPECIAL_USE)('PUT /v1/webhook refuses %s (%s) with 400', async (url, range) => {
    const res = await put(url);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 400,
      message: expect.stringMatching(new RegExp(`public unicast addresses only \\(.* is ${range}\\)`)),
    });
  });

  it.each(['https://93.184.216.34/hooks', 'https://[2606:4700::1111]/h', 'https://[::ffff:8.8.8.8]/h'])(
    'PUT /v1/webhook accepts the public unicast address %s',
    async (url) => {
      expect((await put(url)).status).toBe(200);
    },
  );
});

describe('hosted mode: the sender refuses every non-public address it would dial, without connecting', () => {
  it.each(SPECIAL_USE)('sendWebhook to %s is refused (%s)', async (url, range) => {
    const result = await sendWebhook({
      url,
      body: '{}',
      headers: {},
      timeoutMs: 2000,
      refuseInternal: true,
      now: () => 0,
    });
    expect(result).toMatchObject({ statusCode: null, error: `refused: url is a non-public address (${range})` });
  });
});
