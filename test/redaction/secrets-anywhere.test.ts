import fc from 'fast-check';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { Redactor } from '../../src/redaction/redactor.js';
import { withCheckDigit } from '../helpers/luhn.js';
import { ADMIN_TOKEN, createTestSandbox, type AccountHandle, type TestSandbox, sqliteOf } from '../helpers/sandbox.js';
import { signIn } from '../helpers/console-session.js';
import { onPostgres } from '../helpers/postgres.js';
import { propertyRuns } from '../helpers/property-runs.js';

// Redaction by value (docs/design.md, "Redaction by value"): a secret sent in any position (path, query, any header,
// X-Request-Id, any body field, nested, inside a string) and in any spelling (a card number with spaces, dots,
// slashes, dashes, underscores, tabs or newlines between its digits; a CVV under any of its usual names in any
// case; a key, a webhook secret, the admin token by value) is found in none of the outputs: the request log as the
// API answers it, the console's Requests pages, the server's log, the database file.

const RUNS = propertyRuns(Number(process.env.REDACTION_RUNS ?? 30));

const SEPARATORS = [' ', '  ', '.', '/', '-', '_', '\t', '\n', ' - ', '\u00a0', '\u2013'];
const CVV_NAMES = [
  'cvv',
  'cvc',
  'cvc2',
  'cvv2',
  'securityCode',
  'card_cvv',
  'SECURITY_CODE',
  'Cvv',
  'cardCvc',
  'csc',
  'cvd',
  'cv2',
  'cardCode',
  'cvv_code',
  'CVV-Code',
  'cvvNumber',
];

const pan = fc
  .array(fc.integer({ min: 0, max: 9 }), { minLength: 9, maxLength: 9 })
  .map((digits) => withCheckDigit(`454924${digits.join('')}`));

/** A card number written as a person might: in groups of 4 (or 4-6-6), with one separator style, or all in one run. */
const spelledPan = fc.record({
  pan,
  separator: fc.constantFrom('', ...SEPARATORS),
  grouping: fc.constantFrom([4, 4, 4, 4], [4, 6, 6]),
});
function spell({ pan, separator, grouping }: { pan: string; separator: string; grouping: readonly number[] }): string {
  const groups: string[] = [];
  let at = 0;
  for (const size of grouping) groups.push(pan.slice(at, (at += size)));
  return groups.join(separator);
}

type Position = 'path' | 'query' | 'header' | 'header-name' | 'request-id' | 'body-field' | 'body-nested' | 'body-text';
const position = fc.constantFrom<Position>(
  'path',
  'query',
  'header',
  'request-id',
  'body-field',
  'body-nested',
  'body-text',
);

interface Placement {
  secret: string;
  position: Position;
  /** A field, parameter or header name for the positions that have one. */
  name: string;
}

const fieldName = fc
  .stringMatching(/^[a-z][a-zA-Z0-9]{0,11}$/)
  .filter((n) => !/key|token|secret|auth|pass|sig/i.test(n));

let dir: string;
let sb: TestSandbox;
let acct: AccountHandle;
let other: AccountHandle;
let webhookSecret: string;
const logs = { text: '' };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-redaction-'));
  sb = createTestSandbox({
    config: { dbPath: join(dir, 'sandbox.db') },
    logger: createLogger({
      level: 'debug',
      destination: { write: (line: string) => void (logs.text += line) },
      // What `card-sandbox serve` gives its logger: the server's own secrets (test/cli covers that wiring).
      redactor: new Redactor([ADMIN_TOKEN]),
    }),
  });
  acct = await sb.account({ balance: 100 });
  other = await sb.account();
  const put = await sb.request
    .put('/v1/webhook')
    .set('X-API-KEY', other.apiKey)
    .set('Content-Type', 'application/json')
    .send(JSON.stringify({ url: 'https://example.com/hook' }));
  webhookSecret = (put.body as { secret: string }).secret;
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Sends one request to the account's /v1 with the secrets placed as drawn; answers its request id. */
async function send(placements: Placement[]): Promise<string> {
  let path = '/v1/card/detail';
  const query: string[] = [];
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-API-KEY': acct.apiKey };
  const body: Record<string, unknown> = { cardId: '2026060100000000000001' };
  const texts: string[] = [];
  for (const p of placements) {
    switch (p.position) {
      case 'path':
        path += `/${encodeURIComponent(p.secret)}`;
        break;
      case 'query':
        query.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(p.secret)}`);
        break;
      case 'header':
        // Header values are bytes and cannot hold a newline: such spellings go in as tabs, and what is beyond
        // Latin-1 percent-encoded, as a client does (in the first property, a dash beyond Latin-1 goes in as '-').
        headers[`X-${p.name}`] = p.secret
          .replace(/\n/g, '\t')
          .replace(/[\u2010-\u2015]/g, '-')
          .replace(/[\u0100-\u{10ffff}]+/gu, (s) => encodeURIComponent(s));
        break;
      case 'header-name':
        headers[p.secret] = 'x';
        break;
      case 'request-id':
        headers['X-Request-Id'] = p.secret.replace(/[^A-Za-z0-9._-]/g, '_');
        break;
      case 'body-field':
        body[p.name] = p.secret;
        break;
      case 'body-nested':
        body.meta = { list: [{ [p.name]: p.secret }] };
        break;
      case 'body-text':
        texts.push(`note: ${p.secret} (from the form)`);
        break;
    }
  }
  if (texts.length > 0) body.note = texts.join('; ');
  const target = query.length > 0 ? `${path}?${query.join('&')}` : path;
  let req = sb.request.post(target);
  for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
  const res = await req.send(JSON.stringify(body));
  return res.headers['x-request-id'] as string;
}

async function consolePages(requestId: string): Promise<string> {
  const cookie = (await signIn(sb.server, { apiKey: acct.apiKey }, { 'Sec-Fetch-Site': 'same-origin' })).cookie!;
  const list = await request(sb.server).get('/console/requests').set('Cookie', cookie);
  const one = await request(sb.server)
    .get(`/console/requests/${encodeURIComponent(requestId)}`)
    .set('Cookie', cookie);
  expect(one.status).toBe(200);
  return list.text + one.text;
}

/** Why a test that searches databaseText() skips on PostgreSQL. */
const NO_FILE_ON_POSTGRES = 'searches the bytes of a SQLite database file; a PostgreSQL sandbox keeps no file here';

function databaseText(): string {
  sqliteOf(sb.deps).pragma('wal_checkpoint(TRUNCATE)');
  const file = join(dir, 'sandbox.db');
  const parts = [readFileSync(file)];
  if (existsSync(`${file}-wal`)) parts.push(readFileSync(`${file}-wal`));
  return Buffer.concat(parts).toString('latin1');
}

/** Every form in which an output could still hold a secret sent as `secret`. */
function clearForms(secret: string): string[] {
  const forms = new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]);
  const digits = secret.replace(/\D/g, '');
  if (/^\d{16}$/.test(digits)) {
    // The card number's first twelve digits, in the spelling sent: masking keeps only the last four.
    forms.add(digits);
    forms.add(digits.slice(0, 12));
  }
  return [...forms];
}

describe('redaction by value: no secret in any position or spelling reaches an output', () => {
  it('card numbers, keys, webhook secrets and the admin token, anywhere in a request', async ({ skip }) => {
    // The database's bytes are one of the outputs searched in every run.
    if (onPostgres) return skip(NO_FILE_ON_POSTGRES);
    const secret = fc.oneof(
      spelledPan.map(spell),
      fc.constant('KEY'), // the other account's API key, filled in below (it exists only once the sandbox does)
      fc.constant('WHSEC'),
      fc.constant('ADMIN'),
      fc.constant('OWN'),
    );
    const placement = fc.record({ secret, position, name: fieldName });
    await fc.assert(
      fc.asyncProperty(fc.array(placement, { minLength: 1, maxLength: 3 }), async (drawn) => {
        const real = { KEY: other.apiKey, WHSEC: webhookSecret, ADMIN: ADMIN_TOKEN, OWN: acct.apiKey } as const;
        const placements = drawn.map((p) => ({ ...p, secret: real[p.secret as keyof typeof real] ?? p.secret }));
        const logStart = logs.text.length;
        const requestId = await send(placements);
        const list = await sb.post(acct.apiKey, '/sandbox/v1/requests', { limit: 1 });
        const got = await sb.post(acct.apiKey, '/sandbox/v1/requests/get', { requestId });
        expect(got.status).toBe(200);
        const outputs = {
          api: JSON.stringify(list.body) + JSON.stringify(got.body),
          console: await consolePages(requestId),
          log: logs.text.slice(logStart),
          database: databaseText(),
        };
        for (const p of placements) {
          for (const form of clearForms(p.secret)) {
            for (const [where, text] of Object.entries(outputs)) {
              expect(text.includes(form), `${p.position} ${JSON.stringify(form)} found in ${where}`).toBe(false);
            }
          }
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('a CVV under any of its usual names, as a body field, a nested field, a query parameter or a header', async ({
    skip,
  }) => {
    // The database's bytes are one of the outputs searched in every run.
    if (onPostgres) return skip(NO_FILE_ON_POSTGRES);
    const cvv = fc.integer({ min: 100, max: 999 }).map(String);
    const where = fc.constantFrom('body-field', 'body-nested', 'query', 'header', 'body-text');
    await fc.assert(
      fc.asyncProperty(cvv, fc.constantFrom(...CVV_NAMES), where, async (value, name, position) => {
        const logStart = logs.text.length;
        const requestId = await send([{ secret: value, position: position as Position, name }]);
        const got = await sb.post(acct.apiKey, '/sandbox/v1/requests/get', { requestId });
        const outputs = {
          api: JSON.stringify(got.body),
          console: await consolePages(requestId),
          log: logs.text.slice(logStart),
          database: databaseText(),
        };
        // The CVV next to its name, in any of the ways an output writes a name and its value.
        const pair = new RegExp(`${name}\\W{0,6}${value}`, 'i');
        for (const [place, text] of Object.entries(outputs)) {
          expect(pair.test(text), `${position} ${name}=${value} found in ${place}`).toBe(false);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

// The rest of the spellings (issue: secrets a hostile probe still found in outputs): card numbers in any script's
// decimal digits and split by `,` `:` `|`; keys and tokens upper-cased, in base64 (alone or inside `user:key`, both
// alphabets), percent-encoded character by character (beside a bad escape too), and as a header name.
const SCRIPTS: Record<string, number> = {
  ascii: 0x30,
  fullWidth: 0xff10,
  arabicIndic: 0x660,
  extendedArabicIndic: 0x6f0,
  devanagari: 0x966,
  bengali: 0x9e6,
  thai: 0xe50,
  mathematicalBold: 0x1d7ce,
};
const inScript = (text: string, zero: number) =>
  [...text].map((c) => (c >= '0' && c <= '9' ? String.fromCodePoint(zero + Number(c)) : c)).join('');
const percentAll = (text: string) =>
  [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
const KEY_SPELLINGS = {
  upper: (v: string) => v.toUpperCase(),
  base64: (v: string) => Buffer.from(v).toString('base64'),
  basicAuth: (v: string) => Buffer.from(`partner:${v}`).toString('base64'),
  base64url: (v: string) => Buffer.from(`x${v}`).toString('base64url'),
  percentAll,
  besideBadEscape: (v: string) => `%ZZ${percentAll(v)}`,
};

describe('redaction by value: the rest of the spellings', () => {
  it('card numbers in any decimal digits or split by commas, colons and pipes, and keys in any case, base64 or %-encoded, anywhere', async ({
    skip,
  }) => {
    // The database's bytes are one of the outputs searched in every run.
    if (onPostgres) return skip(NO_FILE_ON_POSTGRES);
    const unicodePan = fc
      .record({
        pan,
        separator: fc.constantFrom('', ',', ':', '|', ', ', ' | ', ' '),
        grouping: fc.constantFrom([4, 4, 4, 4], [4, 6, 6]),
        script: fc.constantFrom(...Object.keys(SCRIPTS)),
      })
      .map((r) => ({ pan: r.pan, sent: inScript(spell(r), SCRIPTS[r.script]!), script: r.script }));
    const spelledKey = fc.record({
      which: fc.constantFrom('KEY', 'WHSEC', 'ADMIN', 'OWN'),
      spelling: fc.constantFrom(...(Object.keys(KEY_SPELLINGS) as (keyof typeof KEY_SPELLINGS)[])),
    });
    const drawn = fc.oneof(
      fc.record({ secret: unicodePan, position: position, name: fieldName }),
      fc.record({
        secret: spelledKey,
        position: fc.constantFrom<Position>(
          'path',
          'query',
          'header',
          'header-name',
          'body-field',
          'body-nested',
          'body-text',
        ),
        name: fieldName,
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(drawn, { minLength: 1, maxLength: 3 }), async (draws) => {
        const real = { KEY: other.apiKey, WHSEC: webhookSecret, ADMIN: ADMIN_TOKEN, OWN: acct.apiKey } as const;
        const checks: { sent: string; clear: string[] }[] = [];
        const placements: Placement[] = [];
        for (const d of draws) {
          if ('pan' in d.secret) {
            const { pan: number, sent, script } = d.secret;
            // The first twelve digits, in the script sent and in ASCII: masking keeps only the last four.
            const clear = [inScript(number.slice(0, 12), SCRIPTS[script]!), number.slice(0, 12)];
            checks.push({ sent, clear });
            placements.push({
              secret: sent,
              position: d.position === 'header-name' ? 'header' : d.position,
              name: d.name,
            });
          } else {
            const value = real[d.secret.which as keyof typeof real];
            const sent = KEY_SPELLINGS[d.secret.spelling](value);
            // A header name is a token: the spellings that are not go in as a header value.
            const tokenSafe = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(sent);
            const where = d.position === 'header-name' && !tokenSafe ? 'header' : d.position;
            checks.push({ sent, clear: [value.toLowerCase(), Buffer.from(value).toString('base64').slice(0, 16)] });
            placements.push({ secret: sent, position: where, name: d.name });
          }
        }
        const logStart = logs.text.length;
        const requestId = await send(placements);
        const got = await sb.post(acct.apiKey, '/sandbox/v1/requests/get', { requestId });
        expect(got.status).toBe(200);
        const outputs = {
          api: JSON.stringify(got.body),
          console: await consolePages(requestId),
          log: logs.text.slice(logStart),
          database: databaseText(),
        };
        for (const { sent, clear } of checks) {
          const forms = [...clearForms(sent), ...clear];
          for (const [where, text] of Object.entries(outputs)) {
            // Keys are looked for in any letter case.
            const seen = text + '\n' + text.toLowerCase();
            for (const form of forms) {
              expect(seen.includes(form), `${JSON.stringify(sent)}: ${JSON.stringify(form)} found in ${where}`).toBe(
                false,
              );
            }
          }
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe('what the sandbox stores holds no card number, wherever a request puts it', () => {
  it("a card number typed as a card's alias is masked in the stored alias, and so everywhere it is shown", async ({
    skip,
  }) => {
    const res = await sb.post(acct.apiKey, '/v1/card/create', {
      amount: 10,
      currency: 'USDT',
      alias: 'team card 4706/5266/3217/3061',
    });
    expect(res.status).toBe(200);
    const detail = await sb.post(acct.apiKey, '/v1/card/detail', { cardId: res.body.cardId });
    expect(detail.body.alias).toBe('team card ****/****/****/3061');
    if (onPostgres) return skip(NO_FILE_ON_POSTGRES);
    expect(databaseText()).not.toContain('4706/5266/3217');
  });
});
