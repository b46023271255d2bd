import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, serveOn, type ServeProcess, stop } from '../helpers/cli-process.js';
import { expectConserved, insertRows, newCard, sim } from '../helpers/core.js';
import { luhnValid } from '../helpers/luhn.js';
import { createTestSandbox, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';
import { DEAD_RECEIVER, reads, richAccount } from '../helpers/snapshot-state.js';
import { post } from '../helpers/http-call.js';
import type { Db } from '../../src/store/seam.js';

// Account snapshots (docs/developer-tools.md, "Snapshots"): snapshot/export answers an account's whole state;
// `serve --snapshot FILE` starts a new database with an account holding exactly that state, ids kept; snapshot/import
// loads it into a child sandbox, ids another account holds replaced.

const SECRET = 'snapshot-test-server-secret-0123456789abcdef';

let sb: TestSandbox | undefined;
let dir: string | undefined;
const servers: ServeProcess[] = [];

beforeAll(() => ensureBuilt());

afterEach(async () => {
  for (const s of servers.splice(0)) await stop(s);
  await sb?.close();
  sb = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A served process's calls with its key. */
function client(url: string, key: string) {
  return async (path: string, body: object = {}) => {
    const res = await post(url, key, path, body);
    expect(res.status, `${path} ${res.text}`).toBe(200);
    return res.body as Record<string, unknown>;
  };
}

async function exportText(sandbox: TestSandbox, acct: AccountHandle): Promise<string> {
  const res = await sandbox.post(acct.apiKey, '/sandbox/v1/snapshot/export');
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  return res.text;
}

describe('serve --snapshot', () => {
  it('starts a new database whose account answers card/list, every bill/list row, assetList and the clock exactly as the exported one', async () => {
    sb = createTestSandbox({ config: { secret: SECRET } });
    const { acct, cards } = await richAccount(sb);
    const exported = await exportText(sb, acct);
    dir = mkdtempSync(join(tmpdir(), 'snapshot-serve-'));
    const file = join(dir, 'snapshot.json');
    writeFileSync(file, exported);
    const before = await reads(async (path, body = {}) => (await sb!.post(acct.apiKey, path, body)).body, cards);

    const booted = await serveOn(join(dir, 'booted.db'), ['--snapshot', file], { SANDBOX_SECRET: SECRET });
    servers.push(booted);
    expect(booted.stdout()).toContain(`Ready account ${acct.accountId} (from the snapshot ${file})`);
    const key = /API key \(shown once, keep it\): (\S+)/.exec(booted.stdout())![1]!;
    const secret = /Webhook secret \(shown once, keep it\): (whsec_\S+)/.exec(booted.stdout())![1]!;
    expect(key).not.toBe(acct.apiKey);
    const post = client(booted.url, key);
    expect(await reads(post, cards)).toEqual(before);

    // The endpoint is the same, under a new secret; the card numbers are the same under the same server secret.
    const webhook = (await (await fetch(`${booted.url}/v1/webhook`, { headers: { 'X-API-KEY': key } })).json()) as {
      url: string;
      secretPrefix: string;
    };
    expect(webhook.url).toBe(DEAD_RECEIVER);
    expect(secret.startsWith(webhook.secretPrefix)).toBe(true);
    const sensitive = async (p: typeof post) => p('/v1/card/sensitiveInfo', { cardId: cards[0] });
    expect(await sensitive(post)).toEqual(
      (await sb.post(acct.apiKey, '/v1/card/sensitiveInfo', { cardId: cards[0] })).body,
    );

    // A restart on the database it made keeps that account, and shows no key again.
    await stop(servers.pop()!);
    const again = await serveOn(join(dir, 'booted.db'), ['--snapshot', file], { SANDBOX_SECRET: SECRET });
    servers.push(again);
    expect(again.stdout()).not.toContain('API key (shown once');
    expect((await client(again.url, key)('/v1/card/list')).cardList).toEqual(
      (before.cardList as { cardList: unknown }).cardList,
    );
  });

  it("under another server secret, keeps each card number's BIN, last four digits and expiry; the rest is derived anew", async () => {
    sb = createTestSandbox({ config: { secret: SECRET } });
    const acct = await sb.account({ balance: 100 });
    const cardId = await newCard(sb, acct.apiKey, 20);
    const original = (await sb.post(acct.apiKey, '/v1/card/sensitiveInfo', { cardId })).body;
    dir = mkdtempSync(join(tmpdir(), 'snapshot-secret-'));
    const file = join(dir, 'snapshot.json');
    writeFileSync(file, await exportText(sb, acct));
    const booted = await serveOn(join(dir, 'other.db'), ['--snapshot', file]);
    servers.push(booted);
    const post = client(booted.url, /API key \(shown once, keep it\): (\S+)/.exec(booted.stdout())![1]!);
    const moved = await post('/v1/card/sensitiveInfo', { cardId });
    const masked = ((await post('/v1/card/list')).cardList as { maskedCardNo: string }[])[0]!.maskedCardNo;
    expect(moved.cardNo).not.toBe(original.cardNo);
    expect(moved.cardNo).toMatch(/^454924\d{10}$/);
    expect((moved.cardNo as string).slice(-4)).toBe(masked.slice(-4));
    expect((moved.cardNo as string).slice(-4)).toBe((original.cardNo as string).slice(-4));
    expect(luhnValid(moved.cardNo as string)).toBe(true);
    expect(moved.expiryDate).toBe(original.expiryDate);
  });

  it('refuses a snapshot of another version, and a database that already holds accounts, exit 1 naming why', async () => {
    sb = createTestSandbox();
    const acct = await sb.account({ balance: 1 });
    dir = mkdtempSync(join(tmpdir(), 'snapshot-refused-'));
    const file = join(dir, 'v2.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(await exportText(sb, acct)), version: 2 }));
    const refused = await runCli(['serve', '--db', join(dir, 'x.db'), '--port', '0', '--snapshot', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/version must be 1: this is a document of version 2/);
    const used = join(dir, 'used.db');
    const first = await serveOn(used);
    await stop(first);
    writeFileSync(file, await exportText(sb, acct));
    const taken = await runCli(['serve', '--db', used, '--port', '0', '--snapshot', file]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/already holds accounts: a snapshot starts a new database only/);
  });
});

describe('POST /sandbox/v1/snapshot/import', () => {
  it('loads a copy of the account into a child: the same state, every id another account holds replaced everywhere', async () => {
    sb = createTestSandbox();
    const { acct, cards } = await richAccount(sb);
    const exported = JSON.parse(await exportText(sb, acct));
    const res = await sb.post(acct.apiKey, '/sandbox/v1/snapshot/import', exported);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const child = res.body as { accountId: string; apiKey: string; changedIds: Record<string, string> };
    // Every card, transaction and event id is the parent's, so each was replaced.
    for (const id of [...cards, ...exported.transactions.map((t: { id: string }) => t.id)]) {
      expect(child.changedIds[id], id).toMatch(/./);
    }
    const childCards = (await sb.post(child.apiKey, '/v1/card/list')).body.cardList as { cardId: string }[];
    expect(childCards.map((c) => c.cardId)).toEqual([...cards].reverse().map((c) => child.changedIds[c]));
    expect((await sb.post(child.apiKey, '/sandbox/v1/sandboxes/list')).status).toBe(200);
    await expectConserved(sb.deps, child.accountId);

    // The oracle: the child's own export is the parent's with each id mapped, and nothing else changed.
    const childExport = JSON.parse(await exportText(sb, { ...child, keyId: '' }));
    const map = new Map<string, string>([...Object.entries(child.changedIds), [acct.accountId, child.accountId]]);
    const mapped = JSON.parse(JSON.stringify(exported), (_k, v: unknown) =>
      typeof v === 'string'
        ? (map.get(v) ??
          (v.includes(':')
            ? v
                .split(':')
                .map((p) => map.get(p) ?? p)
                .join(':')
            : v))
        : v,
    );
    // A deposit address names one account: the child, whose parent holds the snapshot's, has one of its own.
    expect(childExport.account.depositAddress).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(childExport.account.depositAddress).not.toBe(exported.account.depositAddress);
    for (const doc of [mapped, childExport]) {
      delete doc.exportedAt;
      delete doc.signature;
      delete doc.account.depositAddress;
      // Sections listed in order of their ids (or with ids breaking ties) list new ids in another order.
      for (const section of ['ledgerAccounts', 'sequences', 'topups', 'threedsChallenges', 'trafficRuns']) {
        doc[section] = (doc[section] as unknown[]).map((r) => JSON.stringify(r)).sort();
      }
    }
    expect(childExport).toEqual(mapped);
    // The parent is untouched.
    expect(JSON.parse(await exportText(sb, acct)).cards).toEqual(exported.cards);
  });

  it('answers a snapshot of another version with a 400 naming both versions, and makes no child', async () => {
    sb = createTestSandbox();
    const acct = await sb.account({ balance: 1 });
    const exported = JSON.parse(await exportText(sb, acct));
    for (const [change, message] of [
      [{ version: 2, cards: 'of another shape' }, 'version must be 1: this is a document of version 2'],
      [{ format: 'something-else' }, 'format must be "card-sandbox/account-snapshot"'],
    ] as const) {
      const res = await sb.post(acct.apiKey, '/sandbox/v1/snapshot/import', { ...exported, ...change });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(message);
    }
    expect((await sim(sb, acct.apiKey, 'sandboxes/list')).body.sandboxes).toEqual([]);
  });

  it.each([
    ['a misspelt field', (d: Doc) => (d.cards[0].alias2 = 'x'), 'cards[0].alias2: unknown field'],
    [
      'a transfer from a ledger account it lacks',
      (d: Doc) => (d.transfers[0].debitId = 'wallet:acct_nobody'),
      'transfers[0].debitId',
    ],
    [
      'a balance its transfers do not add up to',
      (d: Doc) => (d.ledgerAccounts[0].balanceMicros += 1),
      'but the transfers of',
    ],
    ['a card on a BIN it lacks', (d: Doc) => (d.cards[0].binId = 'NO-SUCH-BIN'), 'cards[0].binId'],
    ['a card twice', (d: Doc) => d.cards.push({ ...d.cards[0] }), 'is there twice'],
    [
      'a timer on nothing',
      (d: Doc) => d.jobs.push({ dueAtMs: 1, kind: 'topup.settle', ref: 'topup_nothing' }),
      'jobs[0].ref',
    ],
    ['money past the cap', (d: Doc) => bump(d, 6e15), 'past the 5000000000 USDT'],
  ])('refuses %s with a 400 naming where, and makes no child', async (_what, spoil, message) => {
    sb = createTestSandbox();
    const acct = await sb.account({ balance: 100 });
    await newCard(sb, acct.apiKey, 10);
    const doc = JSON.parse(await exportText(sb, acct)) as Doc;
    spoil(doc);
    const res = await sb.post(acct.apiKey, '/sandbox/v1/snapshot/import', doc);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.message).toContain(message);
    expect((await sim(sb, acct.apiKey, 'sandboxes/list')).body.sandboxes).toEqual([]);
  });

  it("hosted mode loads only the server's own snapshots, unchanged: another server's or an edited one is a 400", async () => {
    sb = createTestSandbox({ config: { mode: 'hosted', secret: SECRET } });
    const acct = await sb.account({ balance: 100 });
    await newCard(sb, acct.apiKey, 10, { alias: 'mine' });
    const own = JSON.parse(await exportText(sb, acct));
    expect((await sb.post(acct.apiKey, '/sandbox/v1/snapshot/import', own)).status).toBe(200);
    const edited = { ...own, cards: [{ ...own.cards[0], alias: 'edited' }] };
    const other = createTestSandbox({ config: { secret: `${SECRET}-other` } });
    try {
      const theirs = await other.account({ balance: 100 });
      const foreign = JSON.parse(await exportText(other, theirs));
      for (const doc of [edited, foreign, { ...own, signature: undefined }]) {
        const res = await sb.post(acct.apiKey, '/sandbox/v1/snapshot/import', doc);
        expect(res.status).toBe(400);
        expect(res.body.message).toMatch(/imports only snapshots it exported itself/);
      }
    } finally {
      await other.close();
    }
  });

  it('bounds what a snapshot holds: a body past 8 MiB is a 413, an export past 50,000 rows a 400, nothing kept', async () => {
    sb = createTestSandbox();
    const acct = await sb.account({ balance: 100 });
    const big = JSON.stringify({
      format: 'card-sandbox/account-snapshot',
      version: 1,
      pad: 'x'.repeat(8 * 1024 * 1024),
    });
    const res = await sb.post(acct.apiKey, '/sandbox/v1/snapshot/import', big);
    expect(res.status).toBe(413);
    expect(res.body.message).toBe('Request body is larger than 8 MiB');
    const cardId = await newCard(sb, acct.apiKey, 10);
    await sb.deps.transactions.run((deps) => bulkEvents(deps.db, acct.accountId, 50_001));
    const refused = await sb.post(acct.apiKey, '/sandbox/v1/snapshot/export');
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/the account holds \d+ rows: a snapshot holds at most 50000/);
    expect(cardId).toBeTruthy();
  });

  it("bounds what a tenant's children hold: an import taking them past 200,000 rows together is a 400 and makes no child", async () => {
    sb = createTestSandbox({ config: { mode: 'hosted' } });
    const acct = await sb.account({ balance: 100 });
    await newCard(sb, acct.apiKey, 10);
    const exported = JSON.parse(await exportText(sb, acct));
    const child = (await sb.post(acct.apiKey, '/sandbox/v1/sandboxes/create', {})).body as { accountId: string };
    // The child's rows of the snapshot's tables, counted by the test itself, filled to one row past the bound.
    const count = () => rowsHeld(sb!, child.accountId);
    const incoming = rowsOfDocument(exported);
    const fill = 200_001 - incoming - (await count());
    await sb.deps.transactions.run((deps) => bulkEvents(deps.db, child.accountId, fill));
    const held = await count();
    expect(held + incoming).toBe(200_001);

    const refused = await sb.post(acct.apiKey, '/sandbox/v1/snapshot/import', exported);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(
      `this account's child sandboxes hold ${held} rows and the snapshot ${incoming}: together they may hold at most 200000`,
    );
    expect(((await sim(sb, acct.apiKey, 'sandboxes/list')).body.sandboxes as unknown[]).length).toBe(1);

    // The same snapshot loads once the child holding those rows is gone.
    expect((await sb.post(acct.apiKey, '/sandbox/v1/sandboxes/delete', { accountId: child.accountId })).status).toBe(
      200,
    );
    expect((await sb.post(acct.apiKey, '/sandbox/v1/snapshot/import', exported)).status).toBe(200);
  });

  it("hosted mode: an export pays a request of the tenant's budget per 1,000 rows before it is built; past the budget a 429", async () => {
    sb = createTestSandbox({ config: { mode: 'hosted', rateLimitPerSecond: 40 } });
    const acct = await sb.account({ balance: 100 });
    await sb.deps.transactions.run((deps) => bulkEvents(deps.db, acct.accountId, 15_000));
    const rows = await rowsHeld(sb, acct.accountId);
    // The wall clock stands still in this sandbox: no budget comes back between the calls.
    const exports: number[] = [];
    for (let i = 0; i < 3; i++) exports.push((await sb.post(acct.apiKey, '/sandbox/v1/snapshot/export')).status);
    // 40 a second: each export spends 1 + 15; the third finds 8 left (after its own 1), fewer than its 15.
    expect(exports).toEqual([200, 200, 429]);
    const refused = await sb.post(acct.apiKey, '/sandbox/v1/snapshot/export');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.body.message).toContain(`a snapshot of ${rows} rows costs one request of the budget per 1000 rows`);
    // What the refusals left is still the tenant's: a read goes through.
    expect((await sb.post(acct.apiKey, '/v1/wallet/assetList')).status).toBe(200);
  });

  it('leaves snapshot/export and snapshot/import out of the request log', async () => {
    sb = createTestSandbox();
    const acct = await sb.account({ balance: 1 });
    await sb.post(acct.apiKey, '/v1/wallet/assetList');
    const exported = JSON.parse(await exportText(sb, acct));
    expect((await sb.post(acct.apiKey, '/sandbox/v1/snapshot/import', exported)).status).toBe(200);
    const { requests } = (await sim(sb, acct.apiKey, 'requests', { limit: 10 })).body as {
      requests: { path: string }[];
    };
    expect(requests.map((r) => r.path)).toEqual(['/v1/wallet/assetList']);
  });

  it('carries no card number, CVV, API key, webhook secret or server secret', async () => {
    sb = createTestSandbox({ config: { secret: SECRET } });
    const acct = await sb.account({ balance: 100 });
    const cardId = await newCard(sb, acct.apiKey, 10);
    const webhook = await sb.request
      .put('/v1/webhook')
      .set('X-API-KEY', acct.apiKey)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ url: DEAD_RECEIVER }));
    const { cardNo, cvv } = (await sb.post(acct.apiKey, '/v1/card/sensitiveInfo', { cardId })).body;
    const text = await exportText(sb, acct);
    for (const secret of [cardNo, `"${cvv}"`, acct.apiKey, webhook.body.secret, SECRET])
      expect(text).not.toContain(secret);
  });
});

type Doc = Record<string, any>;

/** The tables whose rows a snapshot holds (docs/developer-tools.md, "What it holds"). */
const SNAPSHOT_TABLES = [
  'account_bin_inventory',
  'cards',
  'topups',
  'transactions',
  'ledger_accounts',
  'transfers',
  'events',
  'jobs',
  'webhook_configs',
  'webhook_deliveries',
  'webhook_attempts',
  'chain_deposits',
  'threeds_challenges',
  'faults',
  'traffic_runs',
];

/** The rows of the snapshot's tables an account holds, counted with SQL of the test's own. */
async function rowsHeld(sandbox: TestSandbox, accountId: string): Promise<number> {
  let n = 0;
  for (const table of SNAPSHOT_TABLES) {
    n += (await sandbox.deps.store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE account_id = ?`, [
      accountId,
    ]))!.n;
  }
  return n;
}

/** `count` events of the account (evt_bulk0, evt_bulk1, ...), each a bare card.created: rows in bulk. */
function bulkEvents(db: Db, accountId: string, count: number): Promise<void> {
  return insertRows(
    db,
    'events',
    ['id', 'account_id', 'type', 'created_s', 'data'],
    Array.from({ length: count }, (_, i) => [`evt_bulk${i}`, accountId, 'card.created', 0, '{}']),
  );
}

/** The rows a snapshot document holds: every array section's rows, and its webhook endpoint when it has one. */
function rowsOfDocument(d: Doc): number {
  const skip = new Set(['bins', 'sequences']);
  return Object.entries(d).reduce(
    (n, [key, value]) =>
      n + (Array.isArray(value) && !skip.has(key) ? value.length : key === 'webhook' && value ? 1 : 0),
    0,
  );
}

/** Moves `micros` from the seed into the wallet in the document itself, books balanced. */
function bump(d: Doc, micros: number) {
  const seed = d.ledgerAccounts.find((l: { kind: string }) => l.kind === 'seed');
  const wallet = d.ledgerAccounts.find((l: { kind: string }) => l.kind === 'wallet');
  seed.balanceMicros -= micros;
  wallet.balanceMicros += micros;
  d.transfers.push({
    debitId: seed.id,
    creditId: wallet.id,
    amountMicros: micros,
    kind: 'sandbox.seed',
    ref: null,
    createdAtMs: 1,
  });
}
