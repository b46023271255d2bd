import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

// CI proves the harness and the server against each other: the compiled server, started as a partner would,
// checked by the compiled CLI with mutations and the property run.
const MAIN = join(import.meta.dirname, '../../dist/src/cli/main.js');
let server: ChildProcess;
let baseUrl: string;

beforeAll(async () => {
  server = spawn(process.execPath, [MAIN, 'serve', '--port', '0', '--db', ':memory:', '--log-level', 'info'], {
    env: { ...process.env, SANDBOX_API_KEY: 'sk_verify_ci_key_0000000000000000000000', SANDBOX_SEED_BALANCE: '100' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  baseUrl = await new Promise<string>((resolve, reject) => {
    let seen = '';
    server.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const url = /"url":"(http:[^"]+)"/.exec(seen)?.[1];
      if (url) resolve(url);
    });
    server.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${seen}`)));
  });
});

afterAll(() => {
  server?.kill('SIGTERM');
});

it('CI: card-sandbox verify --allow-mutations --properties passes against a sandbox it started', async () => {
  const junitFile = join(mkdtempSync(join(tmpdir(), 'verify-')), 'junit.xml');
  const args = [MAIN, 'verify', '--base-url', baseUrl, '--allow-mutations', '--properties', '--num-runs', '30'];
  const child = spawn(process.execPath, [...args, '--junit', junitFile], {
    env: { ...process.env, SANDBOX_API_KEY: 'sk_verify_ci_key_0000000000000000000000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(out).not.toContain('FAIL');
  expect(code).toBe(0);
  expect(out).toMatch(/PASS {2}properties: 30 random sequences/);
  const junit = readFileSync(junitFile, 'utf8');
  rmSync(dirname(junitFile), { recursive: true, force: true });
  expect(junit).toMatch(/failures="0"/);
});

it('a key the target refuses stops verify after the auth check: one message, exit 3, no check reported', async () => {
  const child = spawn(
    process.execPath,
    [MAIN, 'verify', '--base-url', baseUrl, '--api-key', 'sk_wrong_key_0000000000'],
    {
      env: { ...process.env, SANDBOX_API_KEY: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code).toBe(3);
  expect(err.trim().split('\n')).toHaveLength(1);
  expect(err).toMatch(/refused the API key \(POST \/v1\/wallet\/assetList answered 401, code 11002/);
  expect(out).toBe('');
  expect(out + err).not.toMatch(/not this sandbox|FAIL/);
});
