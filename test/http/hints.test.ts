import { describe, expect } from 'vitest';
import { holdNext, newCard, sim } from '../helpers/core.js';
import { fundedTest as it } from '../helpers/fixtures.js';
import { createTestSandbox, START_MS, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';
import { authorize } from '../helpers/card-network.js';

// Beside the spec's terse `{code, message}` (kept exactly), a Sandbox-Hint header says what the sandbox knows: a key
// header missing rather than wrong, which operation is pending on a card and when it ends on the account clock, which
// field differs from a key's first request, the nearest operation to an unknown path. A hint passes the redaction
// rules, is kept in the request-log record, and holds no secret.

let sb: TestSandbox;
let key: string;
let acct: AccountHandle;
it.beforeEach(({ sb: s, acct: a }) => void ([sb, key, acct] = [s, a.apiKey, a]));

const AUTH_FAILED = { code: 11002, message: 'Invalid or revoked API key' };
const hint = (res: { headers: Record<string, string> }) => res.headers['sandbox-hint'];
const keyed = (k: string, path: string, body: object) => sb.post(key, path, body, { 'Idempotency-Key': k });

describe('Sandbox-Hint: the key', () => {
  it('says the X-API-KEY header is missing, not wrong; the body stays the spec’s', async () => {
    const res = await sb.post(undefined, '/v1/wallet/assetList', {});
    expect([res.status, res.body]).toEqual([401, AUTH_FAILED]);
    expect(hint(res)).toMatch(/^No X-API-KEY header was sent: send your API key in X-API-KEY/);
    const bearer = await sb.post(undefined, '/v1/wallet/assetList', {}, { Authorization: `Bearer ${key}` });
    expect(hint(bearer)).toMatch(/an Authorization header was sent, and this API reads the key from X-API-KEY only/);
    expect(hint(bearer)).not.toContain(key.slice(11));
    const misnamed = await sb.post(undefined, '/v1/wallet/assetList', {}, { 'Api-Key': key });
    expect(hint(misnamed)).toMatch(/a header named api-key was sent, which this API does not read/);
  });

  it('without a key says where keys come from: the ready account a local server prints, or the operator', async () => {
    expect(hint(await sb.post(undefined, '/v1/wallet/assetList', {}))).toBe(
      'No X-API-KEY header was sent: send your API key in X-API-KEY (keys are issued by the operator: ' +
        'POST /admin/v1/accounts/{id}/keys).',
    );
    const local = createTestSandbox({ config: { bootstrapAccount: true } });
    try {
      expect(hint(await local.post(undefined, '/v1/wallet/assetList', {}))).toBe(
        "No X-API-KEY header was sent: send your API key in X-API-KEY (the server prints the ready account's key on " +
          'the first start of its database; the console signs in with it).',
      );
    } finally {
      await local.close();
    }
  });

  it('says a key was sent and is no active key; a Bearer scheme or a webhook secret in it is named', async () => {
    const wrong = await sb.post('sk_sandbox_noSuchKey0000000000000000000000000000', '/v1/wallet/assetList', {});
    expect([wrong.status, wrong.body]).toEqual([401, AUTH_FAILED]);
    expect(hint(wrong)).toMatch(/^X-API-KEY was sent but is no active key of this server/);
    expect(hint(wrong)).toMatch(/a new database \(--db :memory:, a deleted \.\/data\) knows none of the keys/);
    expect(hint(await sb.post(`Bearer ${key}`, '/v1/wallet/assetList', {}))).toMatch(/starts with "Bearer"/);
    const secret = 'whsec_0123456789abcdefghijklmnopqrstuv';
    const webhookSecret = await sb.post(secret, '/v1/wallet/assetList', {});
    expect(hint(webhookSecret)).toMatch(/holds a webhook signing secret \(whsec_\.\.\.\), not an API key/);
    expect(hint(webhookSecret)).not.toContain(secret.slice(6));
  });

  it('with missingKeyStatus 403 the body stays empty and the hint says the header is missing', async () => {
    const other = createTestSandbox({ config: { missingKeyStatus: 403 } });
    try {
      const res = await other.post(undefined, '/v1/wallet/assetList', {});
      expect([res.status, res.text]).toEqual([403, '']);
      expect(hint(res)).toMatch(/^No X-API-KEY header was sent/);
    } finally {
      await other.close();
    }
  });
});

describe('Sandbox-Hint: 4007, what is pending on the card and until when', () => {
  it('a settling top-up: its amount and when it settles on the account clock; advancing that far lets the retry through', async () => {
    const cardId = await newCard(sb, key, 10);
    expect((await keyed('top-1', '/v1/card/deposit', { cardId, amount: 5 })).status).toBe(200);
    const refused = await keyed('top-2', '/v1/card/deposit', { cardId, amount: 7 });
    expect([refused.status, refused.body]).toEqual([
      400,
      { code: 4007, message: 'A conflicting operation is pending on this card' },
    ]);
    const settles = new Date(START_MS + 3000).toISOString();
    expect(hint(refused)).toBe(
      `A top-up of 5 USDT to this card is settling: it settles at ${settles} on the account clock (in 3 s), and ` +
        'deposit, freeze, unfreeze and cancel wait for it. Retry then, or advance the account clock ' +
        '(POST /sandbox/v1/clock {"advanceSeconds": 3}).',
    );
    for (const path of ['/v1/card/freeze', '/v1/card/cancel'])
      expect(hint(await sb.post(key, path, { cardId }))).toBe(hint(refused));
    await sb.advance(key, 3);
    expect((await keyed('top-2', '/v1/card/deposit', { cardId, amount: 7 })).status).toBe(200);
  });

  it('a cancel while authorisations are PENDING: which ones, and when the first expires on the account clock', async () => {
    const cardId = await newCard(sb, key, 50);
    await sb.advance(key, 60);
    const auth = (await authorize(sb, key, cardId, { amount: 5 })).body.transactionId as string;
    const refused = await sb.post(key, '/v1/card/cancel', { cardId });
    expect(refused.body.code).toBe(4007);
    const expires = new Date(START_MS + 60_000 + 7 * 86_400_000).toISOString();
    expect(hint(refused)).toBe(
      `card/cancel waits for this card's 1 PENDING authorisation (${auth}): clear or reverse them ` +
        '(POST /sandbox/v1/transaction/clear or /reverse), or let them expire: an authorisation is reversed 7 days ' +
        `after it was made, the first at ${expires} on the account clock.`,
    );
    await sb.advance(key, 7 * 86_400);
    expect((await sb.post(key, '/v1/card/cancel', { cardId })).status).toBe(200);
  });
});

describe('Sandbox-Hint: 4211, what differs from the key’s first request', () => {
  it('names the field whose value changed, without its value', async () => {
    const cardId = await newCard(sb, key, 10);
    expect((await keyed('k-1', '/v1/card/deposit', { cardId, amount: 5, currency: 'USDT' })).status).toBe(200);
    const res = await keyed('k-1', '/v1/card/deposit', { cardId, amount: 6, currency: 'USDT' });
    expect([res.status, res.body]).toEqual([
      409,
      { code: 4211, message: 'Idempotency-Key was already used with a different request' },
    ]);
    expect(hint(res)).toBe(
      "This request differs from this Idempotency-Key's first request (card/deposit): amount differs. A retry must " +
        'repeat the first body (key order and white space do not matter); a new operation needs a new key.',
    );
  });

  it('names fields added and missing, and another operation under the same key', async () => {
    expect((await keyed('k-2', '/v1/card/create', { amount: 10, currency: 'USDT' })).status).toBe(200);
    const more = await keyed('k-2', '/v1/card/create', { amount: 10, currency: 'USDT', alias: 'Team travel' });
    expect(hint(more)).toMatch(/: alias is new in this request\. /);
    expect((await keyed('k-5', '/v1/card/create', { amount: 10, currency: 'USDT', alias: 'Ops' })).status).toBe(200);
    const less = await keyed('k-5', '/v1/card/create', { amount: 11, currency: 'USDT' });
    expect(hint(less)).toMatch(/: amount differs; alias was in the first request only\. /);
    const elsewhere = await keyed('k-2', '/v1/card/freeze', { cardId: '2026060100000000000000' });
    expect(hint(elsewhere)).toMatch(
      /^This Idempotency-Key was first used on card\/create, and this request is card\/freeze/,
    );
  });

  it('keeps no value of the first request: keyed digests of its fields only', async () => {
    expect(
      (await keyed('k-3', '/v1/card/create', { amount: 10, currency: 'USDT', alias: 'Quarterly offsite' })).status,
    ).toBe(200);
    const row = (await sb.deps.store.value<string>("SELECT field_digests FROM idempotency_keys WHERE key = 'k-3'"))!;
    const digests = JSON.parse(row) as Record<string, string>;
    expect(Object.keys(digests)).toEqual(['alias', 'amount', 'currency']);
    for (const d of Object.values(digests)) expect(d).toMatch(/^[0-9a-f]{16}$/);
    expect(row).not.toMatch(/Quarterly|USDT|"10"/);
  });

  it('a 4212 says the first request with the key has not answered yet, and that a retry then replays it', async () => {
    const hold = await holdNext(sb, acct, '/v1/card/create');
    const first = keyed('k-held', '/v1/card/create', { amount: 10, currency: 'USDT' }).then((r) => r);
    await hold.held();
    const retry = await keyed('k-held', '/v1/card/create', { amount: 10, currency: 'USDT' });
    expect([retry.status, retry.body.code]).toEqual([409, 4212]);
    expect(hint(retry)).toMatch(/^The first request with this Idempotency-Key has not answered yet \(a fault holds it/);
    await hold.release();
    expect((await first).status).toBe(200);
    const replayed = await keyed('k-held', '/v1/card/create', { amount: 10, currency: 'USDT' });
    expect([replayed.status, replayed.headers['sandbox-hint']]).toEqual([200, undefined]);
  });

  it('a key stored before field digests were kept (a database upgraded to migration 063): says the body differs', async () => {
    const cardId = await newCard(sb, key, 10);
    expect((await keyed('k-old', '/v1/card/deposit', { cardId, amount: 5 })).status).toBe(200);
    await sb.deps.store.run("UPDATE idempotency_keys SET field_digests = NULL WHERE key = 'k-old'");
    const res = await keyed('k-old', '/v1/card/deposit', { cardId, amount: 6 });
    expect(res.body.code).toBe(4211);
    expect(hint(res)).toBe(
      "This request's body differs from this Idempotency-Key's first request. A retry must repeat the first body (key " +
        'order and white space do not matter); a new operation needs a new key.',
    );
  });

  it('never prints a card number used as a field name: the hint counts it, the record masks it', async () => {
    const pan = '4549240372209645';
    expect((await keyed('k-4', '/v1/card/create', { amount: 10, currency: 'USDT' })).status).toBe(200);
    const res = await keyed('k-4', '/v1/card/create', { amount: 10, currency: 'USDT', [pan]: 1 });
    expect(res.body.code).toBe(4211);
    expect(hint(res)).toMatch(/: 1 other field is new in this request\. /);
    expect(hint(res)).not.toContain(pan.slice(0, 12));
    const record = (await sim(sb, key, 'requests/get', { requestId: res.headers['x-request-id'] })).body;
    expect(record.hint).toBe(hint(res));
    expect(JSON.stringify(record)).not.toContain(pan.slice(0, 12));
  });
});

describe('Sandbox-Hint: 404, the nearest operation', () => {
  it.each([
    ['POST', '/v1/card/creat', 'No operation here; the nearest is POST /v1/card/create.'],
    ['POST', '/sandbox/v1/faults/relase', 'No operation here; the nearest is POST /sandbox/v1/faults/release.'],
    ['POST', '/sandbox/v1/card/create', /^No operation here; did you mean POST \/v1\/card\/create\?/],
    ['GET', '/v1/card/list', /^This path answers POST \/v1\/card\/list only/],
    ['POST', '/v2/card/create', /this server answers \/v1 \(the partner API\).*listed at \/docs/],
  ])('%s %s', async (method, path, expected) => {
    const res = await sb.request[method === 'GET' ? 'get' : 'post'](path).set('X-API-KEY', key);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe(404);
    if (typeof expected === 'string') expect(hint(res)).toBe(expected);
    else expect(hint(res)).toMatch(expected);
  });

  it('is kept in the request-log record of a 404 under /v1', async () => {
    const res = await sb.post(key, '/v1/card/creat', {});
    const record = (await sim(sb, key, 'requests/get', { requestId: res.headers['x-request-id'] })).body;
    expect(record).toMatchObject({ status: 404, hint: 'No operation here; the nearest is POST /v1/card/create.' });
    expect(record.response.headers['sandbox-hint']).toBe(record.hint);
  });
});

describe('Sandbox-Hint: a body that is no JSON object says to send {}', () => {
  const post = (contentType: string | undefined, text: string | undefined) => {
    let req = sb.request.post('/v1/wallet/assetList').set('X-API-KEY', key);
    if (contentType !== undefined) req = req.set('Content-Type', contentType);
    return text === undefined ? req : req.send(text);
  };

  it.each([
    [
      'no body at all (a POST with a nil body)',
      'application/json',
      undefined,
      'request body is not valid JSON',
      /^The body is empty/,
    ],
    ['an empty body', 'application/json', '', 'request body is not valid JSON', /^The body is empty/],
    ['white space', 'application/json', ' \n', 'request body is not valid JSON', /^The body is empty/],
    ['form fields', 'application/json', 'currency=USDT', 'request body is not valid JSON', /^The body is not JSON/],
    [
      'a JSON array',
      'application/json',
      '[]',
      'request body must be a JSON object',
      /^The body is JSON but not an object/,
    ],
    [
      'no Content-Type and no body',
      undefined,
      undefined,
      'Content-Type must be application/json',
      /Content-Type: application\/json/,
    ],
    [
      'a form Content-Type',
      'application/x-www-form-urlencoded',
      'a=1',
      'Content-Type must be application/json',
      /Content-Type: application\/json/,
    ],
  ])('%s: the 400 stays the spec’s, the hint says to send {}', async (_name, type, text, message, says) => {
    const res = await post(type, text);
    expect([res.status, res.body]).toEqual([400, { code: 400, message }]);
    expect(hint(res)).toMatch(says);
    expect(hint(res)).toContain("send {} when you have no field to give (curl: -d '{}')");
  });

  it('{} as the hint says is answered', async () => {
    const res = await post('application/json', '{}');
    expect([res.status, res.body.code]).toEqual([200, 0]);
    expect(hint(res)).toBeUndefined();
  });

  it('is kept in the request-log record, on the simulation API too', async () => {
    const res = await sb.request
      .post('/sandbox/v1/chain/deposits')
      .set('X-API-KEY', key)
      .set('Content-Type', 'application/json');
    expect([res.status, res.body.message]).toEqual([400, 'request body is not valid JSON']);
    const record = (await sim(sb, key, 'requests/get', { requestId: res.headers['x-request-id'] })).body;
    expect(record.hint).toMatch(/^The body is empty: this operation takes a JSON object; send \{\}/);
  });
});
