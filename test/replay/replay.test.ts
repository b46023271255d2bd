import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, spawnCli, startSandbox, stop, type ServeProcess } from '../helpers/cli-process.js';
import { recordKeyedWrites } from '../helpers/keyed-writes.js';
import { jsonLines } from '../helpers/proxy-process.js';
import { cardFlow, client, record, type Call } from './flows.js';
import { closeServer, freePort, listen } from '../helpers/loopback.js';
import { gate } from '../helpers/gate.js';

// `card-sandbox replay` (docs/production.md): a recording replayed against a sandbox, in a child sandbox it creates
// and deletes, answers compared with the recorded ones. A recording of the sandbox itself replays without a
// divergence and leaves the caller's account as it was; a recording of a drifted stand-in shows each drift by
// operation and JSON pointer, and the identifiers the two runs created never count as drift.

const KEY = `sk_sandbox_replay${'0'.repeat(30)}KEY`;
let sandbox: ServeProcess & { url: string };
let recordingKey: string;
let asCaller: Call;
/** Where this file's reports, JUnit files and hand-made recordings go; removed at the end. */
let dir: string;

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'replay-'));
  sandbox = await startSandbox(KEY, { SANDBOX_SEED_BALANCE: '1000' });
  asCaller = client(sandbox.url, KEY);
  // The recorded traffic is another account's (a partner's production account, in real use).
  const child = await asCaller('POST', '/sandbox/v1/sandboxes/create', { name: 'recorded', balance: 300 });
  recordingKey = child.body.apiKey;
}, 300_000);
afterAll(async () => {
  if (sandbox) await stop(sandbox);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const replayCli = (file: string, extra: string[] = [], key = KEY, url = sandbox.url) =>
  runCli(['replay', file, '--base-url', url, '--api-key', key, ...extra]);

/** What the caller's own account shows: balance, cards, events, children. */
async function callerState() {
  const [assets, cards, events, children] = await Promise.all([
    asCaller('POST', '/v1/wallet/assetList', {}),
    asCaller('POST', '/v1/card/list', {}),
    asCaller('POST', '/sandbox/v1/events', {}),
    asCaller('POST', '/sandbox/v1/sandboxes/list', {}),
  ]);
  return { assets: assets.body, cards: cards.body, events: events.body, children: children.body };
}

/** A stand-in in front of the sandbox that changes one thing per operation. */
function driftedStandIn(): Server {
  const drift: Record<string, (status: number, body: any) => [number, any]> = {
    '/v1/card/list': (s, b) => [
      s,
      { ...b, cardList: b.cardList.map((c: any) => ({ ...c, availableBalance: String(c.availableBalance) })) },
    ],
    '/v1/card/sensitiveInfo': (s, { cvv: _cvv, ...rest }) => [s, rest],
    '/v1/card/detail': (s, b) => [s, s === 200 ? { ...b, cardStatus: 'SUSPENDED' } : b],
    '/v1/card/freeze': (_s, b) => [202, b],
  };
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on(
      'end',
      () =>
        void (async () => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(req.headers))
            if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
          const upstream = await fetch(sandbox.url + req.url, {
            method: req.method,
            headers,
            body: req.method === 'GET' ? undefined : Buffer.concat(chunks),
          });
          const text = await upstream.text();
          const change = drift[req.url!.split('?')[0]!];
          const [status, body] = change
            ? change(upstream.status, JSON.parse(text))
            : [upstream.status, text === '' ? undefined : JSON.parse(text)];
          res.writeHead(status, {
            'Content-Type': 'application/json',
            'X-Request-Id': upstream.headers.get('x-request-id') ?? '',
          });
          res.end(body === undefined ? '' : JSON.stringify(body));
        })(),
    );
  });
}

describe('card-sandbox replay', () => {
  let recording: string;
  beforeAll(async () => {
    recording = await record(sandbox.url, recordingKey, cardFlow);
  }, 300_000);

  it("replays a recording of the sandbox with no divergence, leaves the caller's balance, cards, events and children as they were, and gives the same report twice", async () => {
    const before = await callerState();
    const reports = [join(dir, 'replay-a.jsonl'), join(dir, 'replay-b.jsonl')];
    const junit = join(dir, 'replay.xml');
    const first = await replayCli(recording, ['--report', reports[0]!, '--junit', junit]);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toMatch(/replay: 18 exchanges, 18 compared, 0 skipped; 0 divergences in 0 exchanges/);
    expect(first.stdout).toMatch(/seeded with 300 USDT \(first wallet\/assetList, seq 1\)/);
    const second = await replayCli(recording, ['--report', reports[1]!]);
    expect(second.code).toBe(0);
    expect(readFileSync(reports[1]!, 'utf8')).toBe(readFileSync(reports[0]!, 'utf8'));

    const lines = jsonLines(readFileSync(reports[0]!, 'utf8'));
    expect(lines.map((l) => l.result)).toEqual(Array(18).fill('same'));
    expect(lines.at(-1)).toMatchObject({ operation: 'POST /v1/card/detail', recordedStatus: 400, replayedStatus: 400 });
    expect(readFileSync(junit, 'utf8')).toMatch(/<testsuites tests="18" failures="0">/);
    expect(await callerState()).toEqual(before);
    // The replay's own sensitiveInfo answer holds a real card number: no output shows one.
    for (const text of [first.stdout, readFileSync(reports[0]!, 'utf8'), readFileSync(junit, 'utf8')]) {
      expect(text).not.toMatch(/(?<!\d)4549\d{12}(?!\d)/);
    }
  }, 300_000);

  it('sends a keyed write recorded without a key under a key of its own, and one recorded with a key under that key', async () => {
    const recorder = await recordKeyedWrites(sandbox.url);
    try {
      const r = await replayCli(recording, [], KEY, recorder.url);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      // The recorded flow's create carried a key, its deposit and freeze none.
      expect(recorder.writes.map((w) => w.path)).toEqual(['/v1/card/create', '/v1/card/deposit', '/v1/card/freeze']);
      expect(recorder.writes[0]!.key).toMatch(/^flow-create-/);
      expect(recorder.writes.filter((w) => !w.key)).toEqual([]);
    } finally {
      await recorder.close();
    }
  }, 300_000);

  it('reports each drift of a drifted stand-in by operation and JSON pointer, and no false divergence from mapped ids', async () => {
    const standIn = driftedStandIn();
    const standInUrl = await listen(standIn);
    try {
      const drifted = await record(standInUrl, recordingKey, cardFlow);
      const report = join(dir, 'replay-drift.jsonl');
      const r = await replayCli(drifted, ['--report', report]);
      expect(r.code, r.stderr).toBe(1);
      const found = jsonLines(readFileSync(report, 'utf8')).flatMap((l) =>
        l.divergences.map((d: any) => [l.seq, l.operation, d.kind, d.pointer, d.recorded, d.replayed]),
      );
      // 53.8 = 50 x 0.98 (create) + 10 x 0.98 (top-up) - 5 (the cleared purchase), the fee rate being 2 %.
      expect(found).toEqual([
        [4, 'POST /v1/card/detail', 'enum', '/cardStatus', '"SUSPENDED"', '"ACTIVE"'],
        [5, 'POST /v1/card/sensitiveInfo', 'presence', '/cvv', '(absent)', '"[REDACTED]"'],
        [13, 'POST /v1/card/freeze', 'status', 'status', '202', '200'],
        [14, 'POST /v1/card/list', 'type', '/cardList/0/availableBalance', '"53.8" (string)', '53.8 (number)'],
      ]);
      expect(r.stdout).toContain(
        [
          'DIVERGENCE #14 POST /v1/card/list (JSON type)',
          '  at:       /cardList/0/availableBalance',
          '  recorded: "53.8" (string)',
          '  replayed: 53.8 (number)',
        ].join('\n'),
      );
      expect(r.stdout).toMatch(/4 divergences in 4 exchanges/);
    } finally {
      await closeServer(standIn);
    }
  }, 300_000);

  it('deletes its child sandbox when interrupted (Ctrl-C) in the middle of a replay', async () => {
    // A gate in front of the sandbox holds the replay's first card/detail until the test has interrupted it.
    let held: (() => void) | undefined;
    const holding = gate(sandbox.url, async (req) => {
      if (req.url === '/v1/card/detail' && !held) await new Promise<void>((resolve) => (held = resolve));
      return undefined;
    });
    const gateUrl = await listen(holding);
    try {
      const proc = spawnCli(['replay', recording, '--base-url', gateUrl, '--api-key', KEY]);
      const children = async () =>
        ((await asCaller('POST', '/sandbox/v1/sandboxes/list', {})).body.sandboxes as { name: string }[]).filter((c) =>
          c.name.startsWith('replay of'),
        );
      await expect.poll(() => held !== undefined, { timeout: 60_000 }).toBe(true);
      expect(await children()).toHaveLength(1);
      proc.child.kill('SIGINT');
      await expect.poll(() => proc.stdout(), { timeout: 60_000 }).toMatch(/Replaying/);
      held!();
      const { code } = await proc.exited;
      expect(code, proc.stderr()).toBe(130);
      expect(proc.stdout()).toMatch(/Interrupted/);
      expect(await children()).toEqual([]);
    } finally {
      held?.();
      await closeServer(holding);
    }
  }, 300_000);

  it('exits 3 when the target is unreachable or refuses the key, 2 on a usage error or a file that is not a recording', async () => {
    const unreachable = await replayCli(recording, [], KEY, `http://127.0.0.1:${await freePort()}`);
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toMatch(/ECONNREFUSED/);
    const refused = await replayCli(recording, [], 'sk_sandbox_not_a_key_of_this_sandbox_0000000');
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/refused the API key/);
    expect(refused.stderr + refused.stdout).not.toContain('sk_sandbox_not_a_key');

    expect((await runCli(['replay', '--base-url', sandbox.url, '--api-key', KEY])).code).toBe(2);
    const notRecording = join(dir, 'not-a-recording.jsonl');
    writeFileSync(notRecording, '{"seq": 1}\n');
    const bad = await replayCli(notRecording);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/line 1/);
    const help = await runCli(['replay', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: card-sandbox replay FILE\.jsonl --base-url URL --api-key KEY/);
  }, 300_000);
});
