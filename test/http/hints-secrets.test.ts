import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCard, putWebhookConfig, sim } from '../helpers/core.js';
import { ADMIN_TOKEN, createTestSandbox, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

// A hint says what the sandbox knows, never a secret: whatever a client puts where a hint is made from (the API key
// header, header names, a keyed body's field names and values, the path of a 404), neither the Sandbox-Hint nor the
// request-log record shows an API key, a webhook secret, the admin token, a card number, a CVV or an OTP. The oracle is
// the secret itself, looked for in what came back, in any letter case.

let sb: TestSandbox;
let acct: AccountHandle;
let secrets: Record<string, string>;
let seq = 0;
const hinted = new Set<string>();

beforeAll(async () => {
  sb = createTestSandbox();
  acct = await sb.account({ balance: 1000, depositFeeRate: '0' });
  const other = await sb.account({ balance: 10 });
  const cardId = await newCard(sb, acct.apiKey, 10);
  const info = (await sb.post(acct.apiKey, '/v1/card/sensitiveInfo', { cardId })).body as {
    cardNo: string;
    cvv: string;
  };
  const hook = await putWebhookConfig(sb, acct.apiKey, { url: 'http://127.0.0.1:9/hook' });
  secrets = {
    'this account’s API key': acct.apiKey,
    'another account’s API key': other.apiKey,
    'a webhook secret': hook.body.secret as string,
    'the admin token': ADMIN_TOKEN,
    'a card number': info.cardNo,
  };
  // Short secrets are found by their field's name only; a hint never prints a value, so they never show either.
  secrets['a CVV'] = info.cvv;
});

afterAll(() => sb?.close());

type Answer = { status: number; headers: Record<string, string>; body: unknown };
type Placement = (secret: string) => PromiseLike<Answer>;

const keyedTwice = async (first: object, second: object) => {
  const k = `hint-secret-${++seq}`;
  await sb.post(acct.apiKey, '/v1/card/create', first, { 'Idempotency-Key': k });
  return sb.post(acct.apiKey, '/v1/card/create', second, { 'Idempotency-Key': k });
};
const CREATE = { amount: 10, currency: 'USDT' };

/** Where a client can put text a hint is made from; `logged`: the request has a request-log record. */
const PLACEMENTS: Record<string, { logged: boolean; send: Placement }> = {
  'as the X-API-KEY value': { logged: false, send: (s) => sb.post(s, '/v1/wallet/assetList', {}) },
  'after Bearer in X-API-KEY': { logged: false, send: (s) => sb.post(`Bearer ${s}`, '/v1/wallet/assetList', {}) },
  'quoted in X-API-KEY': { logged: false, send: (s) => sb.post(`"${s}"`, '/v1/wallet/assetList', {}) },
  'in an Authorization header, no X-API-KEY': {
    logged: false,
    send: (s) => sb.post(undefined, '/v1/wallet/assetList', {}, { Authorization: `Bearer ${s}` }),
  },
  'in an Api-Key header, no X-API-KEY': {
    logged: false,
    send: (s) => sb.post(undefined, '/v1/wallet/assetList', {}, { 'Api-Key': s }),
  },
  'as a header name, no X-API-KEY': {
    logged: false,
    send: (s) => sb.post(undefined, '/v1/wallet/assetList', {}, /^[A-Za-z0-9_-]+$/.test(s) ? { [s]: 'x' } : {}),
  },
  'as a field name new in a 4211 retry': { logged: true, send: (s) => keyedTwice(CREATE, { ...CREATE, [s]: 1 }) },
  'as a field name gone from a 4211 retry': { logged: true, send: (s) => keyedTwice({ ...CREATE, [s]: 1 }, CREATE) },
  'as a value that changed in a 4211 retry': {
    logged: true,
    send: (s) => keyedTwice({ ...CREATE, alias: 'first' }, { ...CREATE, alias: s }),
  },
  'under cvv and otp in a 4211 retry': {
    logged: true,
    send: (s) => keyedTwice({ ...CREATE, cvv: 'x', otp: 'y' }, { ...CREATE, cvv: s, otp: s }),
  },
  'in the path of a 404': { logged: true, send: (s) => sb.post(acct.apiKey, `/v1/card/${s}`, {}) },
  'in the query of a 404': { logged: true, send: (s) => sb.post(acct.apiKey, `/v1/card/creat?key=${s}`, {}) },
};

describe('a hint never holds a secret', () => {
  it('a hint never holds a secret, wherever a client puts one: header, request-log record', async () => {
    // Every secret in every placement, as given and upper-cased: 144 requests, a second or two in-process.
    for (const which of Object.keys(secrets))
      for (const where of Object.keys(PLACEMENTS))
        for (const upper of [false, true]) {
          const secret = upper ? secrets[which]!.toUpperCase() : secrets[which]!;
          const { logged, send } = PLACEMENTS[where]!;
          const res = await send(secret);
          const hint = res.headers['sandbox-hint'];
          const code = (res.body as { code?: number } | undefined)?.code;
          // A key refused, a 4211 and a 404 always carry a hint (a valid key sent as itself is simply accepted).
          if (code === 11002 || code === 4211 || code === 404) expect(hint, `${which} ${where}`).toBeTruthy();
          if (hint === undefined) continue;
          hinted.add(`${code}`);
          expect(hint.toLowerCase(), `${which} ${where}`).not.toContain(secret.toLowerCase());
          if (!logged) continue;
          const record = (await sim(sb, acct.apiKey, 'requests/get', { requestId: res.headers['x-request-id'] })).body;
          expect(record.hint, `${which} ${where}: the record keeps the hint answered`).toBe(hint);
          // A secret too short to be found by value (a CVV) is found by its field's name; any 3 digits may stand in a
          // record (a length, a latency), so only the long ones are looked for in the whole of it.
          if (secret.length >= 8)
            expect(JSON.stringify(record).toLowerCase(), `${which} ${where}`).not.toContain(secret.toLowerCase());
        }
    // The placements reached each kind of hint.
    expect([...hinted].sort()).toEqual(['11002', '404', '4211']);
  });
});
