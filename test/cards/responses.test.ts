import { describe, expect } from 'vitest';
import { luhnValid } from '../helpers/luhn.js';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cardAvailable,
  expectRefusedUnchanged,
  newCard,
  outbox,
  walletAvailable,
  worldSnapshot,
} from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import { createTestSandbox, START_MS, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let acct: AccountHandle;

it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

const DEFAULT_BIN = 'VISA-EFI-454924';
/** The default BIN as card/binList and card/detail show it. */
const DEFAULT_BIN_VIEW = {
  id: DEFAULT_BIN,
  title: 'Ether Card',
  bin: '454924',
  cardNetwork: 'Visa',
  fee: { deposit: '0.02', fx: '0.006', card: '0', atm: '0.02' },
  limit: { spendDaily: '100000', minimalDeposit: '1' },
  enabled: true,
};
const create = (body: Record<string, unknown>, key = acct.apiKey) => sb.post(key, '/v1/card/create', body);

async function putBin(binId: string, body: Record<string, unknown>) {
  const res = await sb.admin('put', `/admin/v1/bins/${binId}`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('card/create fees: card_credit = amount - amount * deposit_fee_rate - open_fee', () => {
  it('at the default 2 percent and zero open fee, amount 50 credits the card 49 and debits the wallet 50', async () => {
    const res = await create({ amount: 50, currency: 'USDT' });
    expect(res.status).toBe(200);
    expect(await cardAvailable(sb, acct.apiKey, res.body.cardId)).toBe('49');
    expect(await walletAvailable(sb, acct.apiKey)).toBe('50');
  });

  it('at a negotiated 0 percent, amount 50 credits the card 50', async () => {
    const zero = await sb.account({ balance: 100, depositFeeRate: '0' });
    const cardId = await newCard(sb, zero.apiKey, 50);
    expect(await cardAvailable(sb, zero.apiKey, cardId)).toBe('50');
    expect(await walletAvailable(sb, zero.apiKey)).toBe('50');
  });

  it('takes the BIN open fee on card/create and reports it as openFee', async () => {
    await putBin('FEE-BIN', { bin: '411111', fee: { card: '1.5' } });
    const res = await create({ amount: 50, currency: 'USDT', binId: 'FEE-BIN' });
    expect(res.status).toBe(200);
    expect(res.body.openFee).toBe(1.5);
    expect(await cardAvailable(sb, acct.apiKey, res.body.cardId)).toBe('47.5');
    expect(await walletAvailable(sb, acct.apiKey)).toBe('50');
  });

  it('never takes the open fee on card/deposit', async () => {
    await putBin('FEE-BIN', { bin: '411111', fee: { card: '1.5' } });
    const cardId = await newCard(sb, acct.apiKey, 10, { binId: 'FEE-BIN' });
    expect((await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 20 })).status).toBe(200);
    await sb.advance(acct.apiKey, 3);
    // 10 - 0.2 - 1.5 = 8.3, then 20 - 0.4 = 19.6
    expect(await cardAvailable(sb, acct.apiKey, cardId)).toBe('27.9');
  });

  it('floors the card credit to the cent; the remainder is the fee', async () => {
    const cardId = await newCard(sb, acct.apiKey, 10.01);
    // 10.01 - 0.2002 = 9.8098 -> 9.80
    expect(await cardAvailable(sb, acct.apiKey, cardId)).toBe('9.8');
    expect(await walletAvailable(sb, acct.apiKey)).toBe('89.99');
  });

  it('shows the calling account rate as fee.deposit in binList', async () => {
    const other = await sb.account({ depositFeeRate: '0.015' });
    const res = await sb.post(other.apiKey, '/v1/card/binList', {});
    expect(res.body.availableCardBinList[0].fee.deposit).toBe('0.015');
  });
});

describe('card/create and card/deposit errors 3001 and 8001', () => {
  it('fails with 3001 and the documented message when the USDT balance is below the amount, moving nothing', async () => {
    const before = worldSnapshot(sb);
    const res = await create({ amount: 100.000001, currency: 'USDT' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 3001,
      message: 'Your balance is too low for this action. Please add funds to your wallet and try again.',
    });
    expect(worldSnapshot(sb)).toEqual(before);
  });

  it('accepts an amount equal to the whole balance', async () => {
    await newCard(sb, acct.apiKey, 100);
    expect(await walletAvailable(sb, acct.apiKey)).toBe('0');
  });

  it('fails with 8001 below the BIN minimalDeposit and accepts exactly the minimum', async () => {
    const res = await create({ amount: 0.999999, currency: 'USDT' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(8001);
    const cardId = await newCard(sb, acct.apiKey, 1);
    expect(await cardAvailable(sb, acct.apiKey, cardId)).toBe('0.98');
  });

  it('fails with 8001 when the fees consume the amount (credit 0) and accepts a credit of one cent', async () => {
    const zero = await sb.account({ balance: 100, depositFeeRate: '0' });
    await putBin('FEE-BIN', { bin: '411111', fee: { card: '5' }, limit: { minimalDeposit: '1' } });
    const res = await create({ amount: 5.009999, currency: 'USDT', binId: 'FEE-BIN' }, zero.apiKey);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(8001);
    const cardId = await newCard(sb, zero.apiKey, 5.01, { binId: 'FEE-BIN' });
    expect(await cardAvailable(sb, zero.apiKey, cardId)).toBe('0.01');
  });

  it('checks the amount (8001) before the balance (3001)', async () => {
    const poor = await sb.account();
    const res = await create({ amount: 0.5, currency: 'USDT' }, poor.apiKey);
    expect(res.body.code).toBe(8001);
  });

  it('card/deposit fails with 3001 and 8001 on the same rules, moving nothing', async () => {
    const cardId = await newCard(sb, acct.apiKey, 50);
    const before = worldSnapshot(sb);
    const poor = await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 50.01 });
    expect(poor.status).toBe(400);
    expect(poor.body.code).toBe(3001);
    const small = await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 0.5 });
    expect(small.body.code).toBe(8001);
    expect(worldSnapshot(sb)).toEqual(before);
  });
});

describe('card/create BIN and inventory errors', () => {
  it('fails with 4004 for an unknown BIN', async () => {
    const res = await create({ amount: 10, currency: 'USDT', binId: 'NO-SUCH-BIN' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 4004, message: 'Card BIN not found' });
  });

  it('fails with 4005 for a disabled BIN', async () => {
    await putBin('OFF-BIN', { bin: '411111', enabled: false });
    const res = await create({ amount: 10, currency: 'USDT', binId: 'OFF-BIN' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(4005);
  });

  it('fails with 4009 when no inventory is left, moving no funds and creating nothing', async () => {
    await sb.post(acct.apiKey, '/sandbox/v1/inventory', { binId: DEFAULT_BIN, available: 1 });
    await newCard(sb, acct.apiKey, 10);
    const before = worldSnapshot(sb);
    const res = await create({ amount: 10, currency: 'USDT' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(4009);
    expect(worldSnapshot(sb)).toEqual(before);
  });

  it('fails with 4010 while provisioning, moving no funds; a retry after provisioning succeeds', async () => {
    await sb.post(acct.apiKey, '/sandbox/v1/inventory', { binId: DEFAULT_BIN, provisioning: true });
    const before = worldSnapshot(sb);
    const res = await create({ amount: 10, currency: 'USDT' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(4010);
    expect(worldSnapshot(sb)).toEqual(before);
    await sb.post(acct.apiKey, '/sandbox/v1/inventory', { binId: DEFAULT_BIN, provisioning: false });
    await newCard(sb, acct.apiKey, 10);
  });

  it('inventory set for one account does not affect another account', async () => {
    const set = await sb.post(acct.apiKey, '/sandbox/v1/inventory', { binId: DEFAULT_BIN, available: 0 });
    expect(set.body).toMatchObject({ code: 0, available: 0 });
    expect((await create({ amount: 10, currency: 'USDT' })).body.code).toBe(4009);
    const other = await sb.account({ balance: 10 });
    const created = await create({ amount: 10, currency: 'USDT' }, other.apiKey);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
  });
});

describe('request validation: 400 {code: 400, message} naming the field, nothing changed', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['amount missing', { currency: 'USDT' }, /amount is required/],
    ['amount as a string', { amount: '10', currency: 'USDT' }, /amount must be a JSON number/],
    ['amount zero', { amount: 0, currency: 'USDT' }, /amount must be a number greater than 0/],
    ['amount negative', { amount: -5, currency: 'USDT' }, /amount must be/],
    ['amount with 7 decimals', { amount: 10.1234567, currency: 'USDT' }, /at most 6 decimal places/],
    ['amount 1e-7', { amount: 1e-7, currency: 'USDT' }, /at most 6 decimal places/],
    ['amount over 1,000,000,000', { amount: 1_000_000_001, currency: 'USDT' }, /at most 1000000000/],
    ['amount a boolean', { amount: true, currency: 'USDT' }, /amount must be a JSON number/],
    ['amount null', { amount: null, currency: 'USDT' }, /amount is required/],
    ['currency missing', { amount: 10 }, /currency is required/],
    ['currency USDC', { amount: 10, currency: 'USDC' }, /currency must be one of USDT/],
    ['currency a number', { amount: 10, currency: 1 }, /currency must be one of USDT/],
    ['binId a number', { amount: 10, currency: 'USDT', binId: 7 }, /binId must be a string/],
    ['binId empty', { amount: 10, currency: 'USDT', binId: '' }, /binId must not be empty/],
    ['alias an object', { amount: 10, currency: 'USDT', alias: {} }, /alias must be a string/],
  ];
  it.each(cases)('card/create rejects %s', async (_name, body, message) => {
    const before = worldSnapshot(sb);
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toMatch(message);
    expect(worldSnapshot(sb)).toEqual(before);
  });

  it.each([
    ['an integer', 10, '9.8'],
    ['one decimal', 10.5, '10.29'],
    ['six decimals', 10.123456, '9.92'],
    ['an exponent', 1e1, '9.8'],
    ['trailing zeros', '10.50', '10.29'],
  ])('card/create accepts an amount written as %s', async (_name, amount, credit) => {
    const body =
      typeof amount === 'string' ? `{"amount": ${amount}, "currency": "USDT"}` : { amount, currency: 'USDT' };
    const res = await sb.post(acct.apiKey, '/v1/card/create', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await cardAvailable(sb, acct.apiKey, res.body.cardId)).toBe(credit);
  });

  it.each([
    ['cardId missing', { amount: 10 }, /cardId is required/],
    ['cardId a number', { cardId: 1, amount: 10 }, /cardId must be a string/],
    ['amount missing', { cardId: 'x' }, /amount is required/],
    ['amount a string', { cardId: 'x', amount: '1' }, /amount must be a JSON number/],
    ['currency USDC', { cardId: 'x', amount: 10, currency: 'USDC' }, /currency must be one of USDT/],
  ])('card/deposit rejects %s', async (_name, body, message) => {
    const res = await sb.post(acct.apiKey, '/v1/card/deposit', body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toMatch(message);
  });

  it.each(['detail', 'asset', 'sensitiveInfo', 'freeze', 'unfreeze', 'cancel'])(
    'card/%s requires cardId as a string',
    async (path) => {
      const missing = await sb.post(acct.apiKey, `/v1/card/${path}`, {});
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual({ code: 400, message: 'cardId is required' });
      const typed = await sb.post(acct.apiKey, `/v1/card/${path}`, { cardId: 42 });
      expect(typed.body).toEqual({ code: 400, message: 'cardId must be a string' });
    },
  );

  it('card/list rejects an unknown status', async () => {
    const res = await sb.post(acct.apiKey, '/v1/card/list', { status: 'LOST' });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/status must be one of/);
  });
});

describe('card response shapes', () => {
  it('card/create returns the card object with a grouped mask, the brand and openFee', async () => {
    const res = await create({ amount: 10, currency: 'USDT', alias: 'travel' });
    expect(res.body).toEqual({
      cardId: expect.stringMatching(/^20260601\d{14}$/),
      binId: DEFAULT_BIN,
      cardStatus: 'ACTIVE',
      maskedCardNo: expect.stringMatching(/^\*{4} \*{4} \*{4} \d{4}$/),
      cardBrand: 'Visa',
      openFee: 0,
    });
  });

  it('card/list returns list items with numbers for balances, newest first, and filters by status', async () => {
    const first = await newCard(sb, acct.apiKey, 10);
    const second = await newCard(sb, acct.apiKey, 20);
    await sb.post(acct.apiKey, '/v1/card/freeze', { cardId: first });
    const res = await sb.post(acct.apiKey, '/v1/card/list', {});
    expect(res.status).toBe(200);
    expect(res.body.cardList).toEqual([
      {
        cardId: second,
        binId: DEFAULT_BIN,
        cardStatus: 'ACTIVE',
        maskedCardNo: expect.stringMatching(/^\*{12}\d{4}$/),
        availableBalance: 19.6,
        frozenAmount: 0,
        currency: 'USD',
      },
      {
        cardId: first,
        binId: DEFAULT_BIN,
        cardStatus: 'FROZEN',
        maskedCardNo: expect.stringMatching(/^\*{12}\d{4}$/),
        availableBalance: 9.8,
        frozenAmount: 0,
        currency: 'USD',
      },
    ]);
    const frozen = await sb.post(acct.apiKey, '/v1/card/list', { status: 'FROZEN' });
    expect(frozen.body.cardList.map((c: { cardId: string }) => c.cardId)).toEqual([first]);
    const none = await sb.post(acct.apiKey, '/v1/card/list', { status: 'CANCELLED' });
    expect(none.body.cardList).toEqual([]);
  });

  it('card/detail returns the full metadata including the BIN configuration', async () => {
    const cardId = await newCard(sb, acct.apiKey, 10, { alias: 'ops' });
    const res = await sb.post(acct.apiKey, '/v1/card/detail', { cardId });
    expect(res.body).toEqual({
      cardId,
      binId: DEFAULT_BIN,
      alias: 'ops',
      cardStatus: 'ACTIVE',
      maskedCardNo: expect.stringMatching(/^\*{12}\d{4}$/),
      cardBrand: 'Visa',
      currency: 'USD',
      availableBalance: 9.8,
      frozenAmount: 0,
      createdAt: new Date(START_MS).toISOString(),
      bin: DEFAULT_BIN_VIEW,
    });
  });

  it('card/asset returns decimal strings in USD', async () => {
    const cardId = await newCard(sb, acct.apiKey, 10);
    const res = await sb.post(acct.apiKey, '/v1/card/asset', { cardId });
    expect(res.body).toEqual({ availableAmount: '9.8', frozenAmount: '0', currency: 'USD' });
  });

  it('card/sensitiveInfo returns a Luhn-valid 16-digit PAN on the BIN ending in the masked digits, a CVV and MM/YY expiry 36 months out', async () => {
    const created = await create({ amount: 10, currency: 'USDT' });
    const cardId = created.body.cardId as string;
    const res = await sb.post(acct.apiKey, '/v1/card/sensitiveInfo', { cardId });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['cardNo', 'cvv', 'expiryDate']);
    expect(res.body.cardNo).toMatch(/^454924\d{10}$/);
    // The oracle first proves itself on published vectors (the Luhn article's 79927398713; the 4111... test card).
    expect([luhnValid('79927398713'), luhnValid('4111111111111111'), luhnValid('4111111111111112')]).toEqual([
      true,
      true,
      false,
    ]);
    expect(luhnValid(res.body.cardNo)).toBe(true);
    // Any one digit changed breaks it: the check digit is not a constant.
    const last = Number(res.body.cardNo.at(-1));
    expect(luhnValid(res.body.cardNo.slice(0, -1) + String((last + 1) % 10))).toBe(false);
    expect(created.body.maskedCardNo.slice(-4)).toBe(res.body.cardNo.slice(-4));
    expect(res.body.cvv).toMatch(/^\d{3}$/);
    expect(res.body.expiryDate).toBe('06/29');
    const again = await sb.post(acct.apiKey, '/v1/card/sensitiveInfo', { cardId });
    expect(again.body).toEqual(res.body);
  });

  it('never stores the PAN or CVV in the database', async () => {
    // A database file, so its bytes (main file and write-ahead log, free pages included) can be searched as written.
    const dir = mkdtempSync(join(tmpdir(), 'card-data-'));
    const filed = createTestSandbox({ config: { dbPath: join(dir, 'sandbox.db') } });
    try {
      const owner = await filed.account({ balance: 100 });
      const shown: { cardNo: string; cvv: string }[] = [];
      for (let i = 0; i < 8; i++) {
        const cardId = await newCard(filed, owner.apiKey, 10);
        const info = await filed.post(owner.apiKey, '/v1/card/sensitiveInfo', { cardId });
        expect(info.body.cardNo).toMatch(/^\d{16}$/);
        expect(info.body.cvv).toMatch(/^\d{3}$/);
        shown.push(info.body);
      }
      // Reading the request log writes what it holds, so the sensitiveInfo calls are in the file too.
      expect((await filed.post(owner.apiKey, '/sandbox/v1/requests', {})).status).toBe(200);

      const bytes = readdirSync(dir)
        .filter((f) => f.startsWith('sandbox.db') && !f.endsWith('.secret'))
        .map((f) => readFileSync(join(dir, f)).toString('latin1'))
        .join('\n');
      expect(bytes.length).toBeGreaterThan(0);
      for (const { cardNo } of shown) {
        expect(bytes).not.toContain(cardNo);
        expect(bytes).not.toContain(cardNo.slice(6)); // the digits after the BIN
      }

      // A CVV is three digits, which any file holds somewhere; so: no text value (a cell, or a string inside a JSON
      // cell) is a CVV, and no numeric column holds every card's CVV.
      const db = filed.deps.db;
      const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[];
      const cvvs = new Set(shown.map((c) => c.cvv));
      const strings: string[] = [];
      const collect = (v: unknown): void => {
        if (typeof v === 'string') strings.push(v);
        else if (v && typeof v === 'object') Object.values(v).forEach(collect);
      };
      for (const table of tables) {
        const rows = db.prepare(`SELECT * FROM "${table}"`).all() as Record<string, unknown>[];
        for (const row of rows) {
          for (const value of Object.values(row)) {
            collect(value);
            if (typeof value === 'string' && /^[[{]/.test(value)) collect(JSON.parse(value));
          }
        }
        for (const column of Object.keys(rows[0] ?? {})) {
          const held = new Set(rows.map((r) => String(r[column]).padStart(3, '0')));
          expect(
            [...cvvs].every((cvv) => held.has(cvv)),
            `${table}.${column}`,
          ).toBe(false);
        }
      }
      expect(strings.filter((v) => cvvs.has(v))).toEqual([]);
    } finally {
      await filed.close();
      if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    }
  });

  it('card/binList lists the default BIN with decimal-string fees and limits', async () => {
    const res = await sb.post(acct.apiKey, '/v1/card/binList', {});
    expect(res.body).toEqual({
      code: 0,
      message: 'ok',
      availableCardBinList: [DEFAULT_BIN_VIEW],
    });
  });
});

describe('card/freeze and card/unfreeze', () => {
  it('ACTIVE -> FROZEN -> ACTIVE with card.frozen and card.unfrozen events, answering {code: 0, message: "ok"}', async () => {
    const cardId = await newCard(sb, acct.apiKey);
    const f = await sb.post(acct.apiKey, '/v1/card/freeze', { cardId });
    expect(f.body).toEqual({ code: 0, message: 'ok' });
    expect((await sb.post(acct.apiKey, '/v1/card/detail', { cardId })).body.cardStatus).toBe('FROZEN');
    const u = await sb.post(acct.apiKey, '/v1/card/unfreeze', { cardId });
    expect(u.body).toEqual({ code: 0, message: 'ok' });
    expect((await sb.post(acct.apiKey, '/v1/card/detail', { cardId })).body.cardStatus).toBe('ACTIVE');
    expect(outbox(sb, acct.accountId).map((e) => [e.type, e.data])).toEqual([
      ['card.created', { cardId, binId: DEFAULT_BIN, status: 'ACTIVE' }],
      ['card.frozen', { cardId }],
      ['card.unfrozen', { cardId }],
    ]);
  });

  it('freezing a FROZEN card or unfreezing an ACTIVE card succeeds without change or event', async () => {
    const cardId = await newCard(sb, acct.apiKey);
    expect((await sb.post(acct.apiKey, '/v1/card/unfreeze', { cardId })).body).toEqual({ code: 0, message: 'ok' });
    await sb.post(acct.apiKey, '/v1/card/freeze', { cardId });
    expect((await sb.post(acct.apiKey, '/v1/card/freeze', { cardId })).body).toEqual({ code: 0, message: 'ok' });
    expect((await sb.post(acct.apiKey, '/v1/card/detail', { cardId })).body.cardStatus).toBe('FROZEN');
    expect(outbox(sb, acct.accountId).map((e) => e.type)).toEqual(['card.created', 'card.frozen']);
  });

  it('a FROZEN card can be topped up and cancelled', async () => {
    const cardId = await newCard(sb, acct.apiKey);
    await sb.post(acct.apiKey, '/v1/card/freeze', { cardId });
    expect((await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 5 })).status).toBe(200);
    await sb.advance(acct.apiKey, 3);
    expect((await sb.post(acct.apiKey, '/v1/card/cancel', { cardId })).status).toBe(200);
  });
});

describe('card/cancel', () => {
  it('moves to CANCELLING at once, then CANCELLED after the cancel delay with the balance returned to the wallet and card.cancelled', async () => {
    const cardId = await newCard(sb, acct.apiKey, 50);
    const res = await sb.post(acct.apiKey, '/v1/card/cancel', { cardId });
    expect(res.body).toEqual({ code: 0, message: 'ok' });
    expect((await sb.post(acct.apiKey, '/v1/card/detail', { cardId })).body.cardStatus).toBe('CANCELLING');
    expect(await walletAvailable(sb, acct.apiKey)).toBe('50');
    await sb.advance(acct.apiKey, 4);
    expect((await sb.post(acct.apiKey, '/v1/card/detail', { cardId })).body.cardStatus).toBe('CANCELLING');
    expect(outbox(sb, acct.accountId).map((e) => e.type)).toEqual(['card.created']);
    await sb.advance(acct.apiKey, 1);
    const detail = await sb.post(acct.apiKey, '/v1/card/detail', { cardId });
    expect(detail.body.cardStatus).toBe('CANCELLED');
    expect(detail.body.availableBalance).toBe(0);
    expect(await walletAvailable(sb, acct.apiKey)).toBe('99');
    const events = outbox(sb, acct.accountId);
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['card.created', { cardId, binId: DEFAULT_BIN, status: 'ACTIVE' }],
      ['card.cancelled', { cardId }],
    ]);
    expect(events[1]!.created).toBe(START_MS / 1000 + 5);
  });

  it('completes on the wall clock too: a running account clock catches up on the next request', async () => {
    const cardId = await newCard(sb, acct.apiKey, 50);
    await sb.post(acct.apiKey, '/v1/card/cancel', { cardId });
    sb.wall.ms += 5_000;
    expect((await sb.post(acct.apiKey, '/v1/card/detail', { cardId })).body.cardStatus).toBe('CANCELLED');
  });

  it.each(['deposit', 'freeze', 'unfreeze', 'cancel'])('fails with 4008 on card/%s while CANCELLING', async (path) => {
    const cardId = await newCard(sb, acct.apiKey, 50);
    await sb.post(acct.apiKey, '/v1/card/cancel', { cardId });
    const res = await expectRefusedUnchanged(sb, 400, () =>
      sb.post(acct.apiKey, `/v1/card/${path}`, { cardId, amount: 5 }),
    );
    expect(res.body).toEqual({ code: 4008, message: 'Card is being cancelled' });
  });

  it('keeps reads working while CANCELLING', async () => {
    const cardId = await newCard(sb, acct.apiKey, 50);
    await sb.post(acct.apiKey, '/v1/card/cancel', { cardId });
    for (const path of ['detail', 'asset', 'sensitiveInfo']) {
      expect((await sb.post(acct.apiKey, `/v1/card/${path}`, { cardId })).status).toBe(200);
    }
    const list = await sb.post(acct.apiKey, '/v1/card/list', { status: 'CANCELLING' });
    expect(list.body.cardList).toHaveLength(1);
  });

  it.each(['deposit', 'freeze', 'unfreeze', 'cancel', 'sensitiveInfo'])(
    'a CANCELLED card answers card/%s with 400 "card is cancelled"',
    async (path) => {
      const cardId = await newCard(sb, acct.apiKey, 50);
      await sb.post(acct.apiKey, '/v1/card/cancel', { cardId });
      await sb.advance(acct.apiKey, 5);
      const res = await expectRefusedUnchanged(sb, 400, () =>
        sb.post(acct.apiKey, `/v1/card/${path}`, { cardId, amount: 5 }),
      );
      expect(res.body).toEqual({ code: 400, message: 'card is cancelled' });
    },
  );

  it('fails with 4007 while the card has a PENDING authorisation', async () => {
    const cardId = await newCard(sb, acct.apiKey, 50);
    sb.deps.db
      .prepare(
        `INSERT INTO transactions (id, account_id, card_id, bin_id, kind, status, bill_amount_micros,
           transaction_amount_micros, transaction_currency, merchant_name, merchant_country, mcc_category,
           created_at_ms, acct_seq, card_seq, bin_seq)
         VALUES ('txn_pending', ?, ?, ?, 'SPEND', 'PENDING', 1000000, 1000000, 'USD', 'M', 'US', 'Retail', ?, 1, 1, 1)`,
      )
      .run(acct.accountId, cardId, DEFAULT_BIN, START_MS);
    const res = await sb.post(acct.apiKey, '/v1/card/cancel', { cardId });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(4007);
    expect((await sb.post(acct.apiKey, '/v1/card/detail', { cardId })).body.cardStatus).toBe('ACTIVE');
  });
});

describe('card/deposit settlement on the account clock', () => {
  it('debits the wallet at once and credits the card net of the fee topUpSettleSeconds later', async () => {
    const cardId = await newCard(sb, acct.apiKey, 10);
    const res = await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 20, currency: 'USDT' });
    expect(res.body).toEqual({ code: 0, message: 'ok' });
    expect(await walletAvailable(sb, acct.apiKey)).toBe('70');
    expect(await cardAvailable(sb, acct.apiKey, cardId)).toBe('9.8');
    await sb.advance(acct.apiKey, 2);
    expect(await cardAvailable(sb, acct.apiKey, cardId)).toBe('9.8');
    await sb.advance(acct.apiKey, 1);
    expect(await cardAvailable(sb, acct.apiKey, cardId)).toBe('29.4');
  });

  it.each(['deposit', 'freeze', 'unfreeze', 'cancel'])(
    'fails with 4007 on card/%s while a top-up is settling',
    async (path) => {
      const cardId = await newCard(sb, acct.apiKey, 10);
      await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 20 });
      const res = await expectRefusedUnchanged(sb, 400, () =>
        sb.post(acct.apiKey, `/v1/card/${path}`, { cardId, amount: 5 }),
      );
      expect(res.body).toEqual({ code: 4007, message: 'A conflicting operation is pending on this card' });
      await sb.advance(acct.apiKey, 3);
      expect((await sb.post(acct.apiKey, `/v1/card/${path}`, { cardId, amount: 5 })).status).toBe(200);
    },
  );

  it('fails with 4001 for an unknown card', async () => {
    const res = await sb.post(acct.apiKey, '/v1/card/deposit', { cardId: '2026060100000000000000', amount: 5 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 4001, message: 'Card not found' });
  });
});

describe('tenant isolation: another account card is 4001 on every card endpoint', () => {
  it.each(['detail', 'asset', 'sensitiveInfo', 'deposit', 'freeze', 'unfreeze', 'cancel'])('card/%s', async (path) => {
    const cardId = await newCard(sb, acct.apiKey, 10);
    const other = await sb.account({ balance: 100 });
    const res = await expectRefusedUnchanged(sb, 400, () =>
      sb.post(other.apiKey, `/v1/card/${path}`, { cardId, amount: 5 }),
    );
    expect(res.body).toEqual({ code: 4001, message: 'Card not found' });
  });

  it('card/list and bill/list never show another account cards', async () => {
    const cardId = await newCard(sb, acct.apiKey, 10);
    const other = await sb.account();
    expect((await sb.post(other.apiKey, '/v1/card/list', {})).body.cardList).toEqual([]);
    const bills = await sb.post(other.apiKey, '/v1/bill/list', { cardId });
    expect(bills.body.code).toBe(4001);
  });
});

describe('card.* events in the outbox', () => {
  it('card.created carries cardId, binId and status with an evt_ id and the account time in Unix seconds', async () => {
    await sb.advance(acct.apiKey, 3600);
    const cardId = await newCard(sb, acct.apiKey, 10);
    const [event] = outbox(sb, acct.accountId);
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_[0-9A-Za-z]{24}$/),
      type: 'card.created',
      created: START_MS / 1000 + 3600,
      data: { cardId, binId: DEFAULT_BIN, status: 'ACTIVE' },
    });
  });

  it('a failed mutation writes no event', async () => {
    await create({ amount: 1000, currency: 'USDT' });
    expect(outbox(sb, acct.accountId)).toEqual([]);
  });
});
