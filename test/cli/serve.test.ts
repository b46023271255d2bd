import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cleanEnv, ensureBuilt, ROOT, runCli, serveOn, spawnCli, startServe, stop } from '../helpers/cli-process.js';
import { waitFor, WAIT_LIMIT_MS } from '../helpers/wait.js';
import { freePort } from '../helpers/loopback.js';
import { post } from '../helpers/http-call.js';
import { onPostgres, postgresCopy } from '../helpers/postgres.js';

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'sandbox-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const assetList = (url: string, key?: string) => post(url, key, '/v1/wallet/assetList');

describe('card-sandbox serve', () => {
  // How fast it answers is measured by `npm run bench` (cold start), not asserted here: a test must pass on a busy
  // machine.
  it('answers /healthz 200 {status: "ok", store, instance} once started, names the instance on every log line, and stops with exit 0', async () => {
    const port = await freePort();
    const proc = spawnCli(['serve', '--port', String(port), '--db', join(dir, 'cold.db')]);
    const res = await waitFor('the first answer of /healthz', () => {
      if (proc.child.exitCode !== null) throw new Error(`serve exited: ${proc.stderr()}`);
      return fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
    });
    expect(res.status).toBe(200);
    const health = (await res.json()) as { instance: string };
    expect(health).toEqual({
      status: 'ok',
      store: 'sqlite',
      instance: expect.stringMatching(/^inst_[0-9A-Za-z]{12}$/),
    });
    expect((await stop(proc)).code).toBe(0);
    const lines = proc.logs();
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.instance).toBe(health.instance);
  });

  it('lets flags beat the environment: --port, --db and --missing-key-status', async () => {
    const [envPort, flagPort] = [await freePort(), await freePort()];
    const env = cleanEnv({
      SANDBOX_PORT: String(envPort),
      SANDBOX_DB: join(dir, 'env.db'),
      SANDBOX_MISSING_KEY_STATUS: '401',
    });
    const args = ['serve', '--port', String(flagPort), '--db', join(dir, 'flag.db'), '--missing-key-status', '403'];
    const proc = await startServe(args, { env });
    try {
      expect(proc.url).toBe(`http://127.0.0.1:${flagPort}`);
      expect(existsSync(join(dir, 'flag.db'))).toBe(true);
      expect(existsSync(join(dir, 'env.db'))).toBe(false);
      const res = await assetList(proc.url);
      expect(res.status).toBe(403);
      expect(res.text).toBe('');
    } finally {
      await stop(proc);
    }
  });

  it('uses the environment when no flag is given', async () => {
    const port = await freePort();
    const env = cleanEnv({
      SANDBOX_PORT: String(port),
      SANDBOX_DB: join(dir, 'env-only.db'),
      SANDBOX_MISSING_KEY_STATUS: '403',
    });
    const proc = await startServe(['serve'], { env });
    try {
      expect(proc.url).toBe(`http://127.0.0.1:${port}`);
      expect(existsSync(join(dir, 'env-only.db'))).toBe(true);
      expect((await assetList(proc.url)).status).toBe(403);
    } finally {
      await stop(proc);
    }
  });

  it.each([
    [['serve', '--bogus'], /bogus/],
    [['serve', '--port', 'abc'], /port must be an integer/],
    [['serve', '--port', '70000'], /port must be an integer/],
    [['serve', '--mode', 'cloud'], /mode must be one of local, hosted/],
    [['serve', '--missing-key-status', '404'], /missing key status must be one of 401, 403/],
    [['serve', '--mode', 'hosted'], /hosted mode requires an admin token/],
    [['serve', '--mode', 'hosted', '--admin-token', 'short'], /admin token of at least 16 characters/],
    [['serve', '--log-level', 'loud'], /log level must be one of/],
    [['serve', '--shutdown-grace', 'soon'], /shutdown grace must be an integer/],
    [['serve', 'extra'], /positional/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [[], /usage: card-sandbox/],
  ])('exits 2 with a message on bad usage: %j', async (args, message) => {
    const proc = spawnCli(args, { env: cleanEnv({ SANDBOX_DB: join(dir, 'never.db') }) });
    const { code } = await proc.exited;
    expect(code).toBe(2);
    expect(proc.stderr() + proc.stdout()).toMatch(message);
    expect(existsSync(join(dir, 'never.db'))).toBe(false);
  });

  it('prints the ready account key once: a second start on the same database does not print it', async () => {
    const db = join(dir, 'bootstrap.db');
    const first = await serveOn(db);
    const key = /API key \(shown once, keep it\): (\S+)/.exec(first.stdout())?.[1];
    expect(key).toMatch(/^sk_sandbox_[0-9A-Za-z]{40}$/);
    expect((await assetList(first.url, key)).status).toBe(200);
    expect((await stop(first)).code).toBe(0);
    expect(first.stdout().split(key!).length - 1).toBe(1);

    const second = await serveOn(db);
    try {
      expect(second.stdout()).not.toMatch(/API key/);
      expect((await assetList(second.url, key)).status).toBe(200);
    } finally {
      await stop(second);
    }
  });

  it('makes an account owning SANDBOX_API_KEY with SANDBOX_SEED_BALANCE, and never prints that key', async () => {
    const env = { SANDBOX_API_KEY: 'ci-key-0123456789', SANDBOX_SEED_BALANCE: '1000' };
    const proc = await serveOn(join(dir, 'given-key.db'), [], env);
    try {
      const res = await assetList(proc.url, 'ci-key-0123456789');
      expect(res.status).toBe(200);
      const assets = res.body.assetList as { currency: string; availableAmount: string }[];
      expect(assets.find((a) => a.currency === 'USDT')?.availableAmount).toBe('1000');
    } finally {
      await stop(proc);
    }
    expect(proc.stdout()).not.toContain('ci-key-0123456789');
    expect(proc.stdout()).not.toMatch(/API key/);
  });

  it('hosted mode makes no ready account unless asked for, and the operator API takes the admin token', async () => {
    const env = { SANDBOX_ADMIN_TOKEN: 'op-token-1-of-serve-tests' };
    const proc = await serveOn(join(dir, 'hosted.db'), ['--mode', 'hosted'], env);
    try {
      expect(proc.stdout()).not.toMatch(/API key/);
      const created = await fetch(`${proc.url}/admin/v1/accounts`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer op-token-1-of-serve-tests' },
        body: JSON.stringify({ depositAddress: null }),
      });
      expect(created.status).toBe(201);
      expect((await fetch(`${proc.url}/admin/v1/accounts/x`)).status).toBe(401);
    } finally {
      await stop(proc);
    }
    expect(proc.stdout()).not.toContain('op-token-1-of-serve-tests');
  });

  it('hosted mode makes the ready account when asked for with SANDBOX_BOOTSTRAP=true', async () => {
    const env = { SANDBOX_ADMIN_TOKEN: 'op-token-2-of-serve-tests', SANDBOX_BOOTSTRAP: 'true' };
    const proc = await serveOn(join(dir, 'hosted-boot.db'), ['--mode', 'hosted'], env);
    try {
      const key = /API key \(shown once, keep it\): (\S+)/.exec(proc.stdout())?.[1];
      expect((await assetList(proc.url, key)).status).toBe(200);
    } finally {
      await stop(proc);
    }
  });

  it('a PostgreSQL database it cannot reach at start: one line naming the host and the reason, no password, exit 2', async () => {
    const port = await freePort();
    const { code, stdout, stderr } = await runCli([
      'serve',
      '--port',
      '0',
      '--db',
      `postgres://sandbox:s3cret-pw@127.0.0.1:${port}/sandbox`,
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    const lines = stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`127.0.0.1:${port}`);
    expect(lines[0]).toMatch(/ECONNREFUSED/);
    expect(stderr).not.toContain('s3cret-pw');
  });

  it('serves on a PostgreSQL database named only by SANDBOX_DB, as the Docker image runs it: its health check passes, nothing is written beside it, no log line holds the password', async ({
    skip,
  }) => {
    if (!onPostgres) return skip('a PostgreSQL server to serve on: the run starts one with TEST_STORE=postgres');
    const db = await postgresCopy();
    const url = new URL(inject('postgresUrl'));
    url.pathname = `/${db.name}`;
    const password = decodeURIComponent(url.password);
    // The image's environment (Dockerfile ENV), its SANDBOX_DB replaced as `docker run -e SANDBOX_DB=...` does, and
    // its command (`serve`, no flag), from a folder of its own standing for the image's /app.
    const image = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const env = Object.fromEntries(
      [...image.matchAll(/^\s*(SANDBOX_[A-Z_]+)=(\S+)/gm)].map(([, name, value]) => [name!, value!]),
    );
    expect(env.SANDBOX_DB).toBe('/data/sandbox.db');
    const port = await freePort();
    const app = mkdtempSync(join(dir, 'app-'));
    const proc = await startServe(['serve'], {
      cwd: app,
      env: cleanEnv({
        ...env,
        SANDBOX_HOST: '127.0.0.1',
        SANDBOX_PORT: String(port),
        SANDBOX_DB: url.toString(),
        SANDBOX_API_KEY: 'ci-key-on-postgres',
        SANDBOX_SEED_BALANCE: '1000',
      }),
    });
    try {
      expect(await (await fetch(`${proc.url}/healthz`)).json()).toMatchObject({ status: 'ok', store: 'postgres' });
      const res = await assetList(proc.url, 'ci-key-on-postgres');
      expect(res.status).toBe(200);
      expect((res.body.assetList as { currency: string; availableAmount: string }[])[0]).toMatchObject({
        currency: 'USDT',
        availableAmount: '1000',
      });
      // The image's HEALTHCHECK command, run as Docker runs it.
      const check = JSON.parse(/^HEALTHCHECK .*\\\n\s*CMD (\[.*\])$/m.exec(image)![1]!) as string[];
      const health = spawnCli(check.slice(1), {
        command: process.execPath,
        env: cleanEnv({ SANDBOX_PORT: String(port) }),
      });
      expect((await health.exited).code, health.stderr()).toBe(0);
    } finally {
      expect((await stop(proc)).code).toBe(0);
      await db.drop();
    }
    expect(readdirSync(app)).toEqual([]);
    expect(proc.logs().find((l) => l.msg === 'card sandbox listening')?.db).toBe(
      url.toString().replace(`:${url.password}@`, '@'),
    );
    expect(proc.stdout() + proc.stderr()).not.toContain(password);
  });

  it('runs as `npx --no-install card-sandbox serve` from the project folder', async () => {
    const proc = await startServe(
      ['--no-install', 'card-sandbox', 'serve', '--port', '0', '--db', join(dir, 'npx.db')],
      {
        command: 'npx',
        cwd: ROOT,
        detached: true,
        // npx loads all of npm before it starts the command, which on a busy CI machine took over a minute once;
        // the network is never its excuse (offline, no update check).
        env: cleanEnv({ npm_config_offline: 'true', npm_config_update_notifier: 'false' }),
        timeoutMs: 4 * WAIT_LIMIT_MS,
      },
    );
    try {
      expect((await fetch(`${proc.url}/healthz`)).status).toBe(200);
    } finally {
      process.kill(-proc.child.pid!, 'SIGTERM');
      await proc.exited;
    }
    // The server under npx stopped too: its port stops answering.
    const stopped = await waitFor('the port to stop answering', () =>
      fetch(`${proc.url}/healthz`).then(
        () => false,
        () => true,
      ),
    );
    expect(stopped).toBe(true);
  });
});
