import { describe, expect } from 'vitest';
import { luhnValid } from '../helpers/luhn.js';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newCard } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import { onPostgres } from '../helpers/postgres.js';
import { DEFAULT_BIN, DEFAULT_BIN_VIEW } from './bins.js';
import { createTestSandbox, START_MS, type AccountHandle, type TestSandbox, sqliteOf } from '../helpers/sandbox.js';

let sb: TestSandbox, acct: AccountHandle;
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

describe('card response shapes', () => {
  it('card/create returns the card object with a grouped mask, the brand and openFee', async () => {
    const res = await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT', alias: 'travel' });
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
    const created = await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
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

  it('never stores the PAN or CVV in the database', async ({ skip }) => {
    if (onPostgres)
      return skip('searches the bytes of a SQLite database file; a PostgreSQL sandbox keeps no file here');
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
      const db = sqliteOf(filed.deps);
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
