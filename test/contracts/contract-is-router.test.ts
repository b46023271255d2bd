import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, cleanEnv, ensureBuilt, startServe, stop, type ServeProcess } from '../helpers/cli-process.js';

// The contract is the router: a copy of the build whose contracts/index.json is changed serves the changed contract.
// The copy is started as a partner starts the sandbox, a real process, so nothing of the test's own modules (a
// cached contract, a route table) can stand in for what the server reads at start.

const API_KEY = 'sk_test_contract_router_0123456789';
let dir: string;
let served: ServeProcess & { url: string };

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(served.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': API_KEY, ...headers },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'contract-router-'));
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'contracts'), join(dir, 'contracts'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const indexFile = join(dir, 'contracts', 'index.json');
  const index = JSON.parse(readFileSync(indexFile, 'utf8')) as {
    operations: Record<string, { idempotent: boolean }>;
  };
  index.operations['POST /v1/card/freeze']!.idempotent = false;
  delete index.operations['POST /v1/card/unfreeze'];
  writeFileSync(indexFile, JSON.stringify(index));
  served = await startServe([join(dir, 'dist/src/cli/main.js'), 'serve', '--port', '0', '--db', ':memory:'], {
    command: process.execPath,
    cwd: dir,
    env: cleanEnv({ SANDBOX_API_KEY: API_KEY, SANDBOX_SEED_BALANCE: '1000' }),
  });
});

afterAll(async () => {
  if (served) await stop(served);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the routes are built from contracts/index.json (a planted change in a copy of the build)', () => {
  it('an operation removed from the contract does not exist: 404, with or without a key', async () => {
    const removed = await post('/v1/card/unfreeze', { cardId: 'card_x' });
    expect(removed.status).toBe(404);
    expect(((await removed.json()) as { code: number }).code).toBe(404);
    const listed = await post('/v1/card/list', {});
    expect(listed.status).toBe(200);
  });

  it('"idempotent": false on card/freeze stops its replays; card/create, still idempotent, replays', async () => {
    const first = await post('/v1/card/create', { amount: 20, currency: 'USDT' }, { 'Idempotency-Key': 'create-1' });
    const again = await post('/v1/card/create', { amount: 20, currency: 'USDT' }, { 'Idempotency-Key': 'create-1' });
    expect(first.status, await first.clone().text()).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const created = (await first.json()) as { cardId: string };
    expect(await again.json()).toEqual(created);
    const { cardId } = created;

    const freeze = () => post('/v1/card/freeze', { cardId }, { 'Idempotency-Key': 'freeze-1' });
    const [one, two] = [await freeze(), await freeze()];
    expect(one.status).toBe(200);
    for (const answer of [one, two]) {
      // Not keyed: the key is neither echoed nor replayed, and the second call runs again.
      expect(answer.headers.get('idempotency-key')).toBeNull();
      expect(answer.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(two.status).toBe(200);
    // Keyed, the same key on another card's freeze would be a mismatch; not keyed, it freezes that card.
    const other = (await (await post('/v1/card/create', { amount: 20, currency: 'USDT' })).json()) as {
      cardId: string;
    };
    const otherFreeze = await post('/v1/card/freeze', { cardId: other.cardId }, { 'Idempotency-Key': 'freeze-1' });
    expect(otherFreeze.status).toBe(200);
    expect(await otherFreeze.json()).toEqual({ code: 0, message: 'ok' });
    const detail = (await (await post('/v1/card/detail', { cardId: other.cardId })).json()) as { cardStatus: string };
    expect(detail.cardStatus).toBe('FROZEN');
  });
});
