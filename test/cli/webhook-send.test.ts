import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli } from '../helpers/cli-process.js';
import { startPartnerApp, type PartnerApp } from '../helpers/partner-app.js';

const SECRET = 'whsec_sendTestSecret0000000000000000';
let app: PartnerApp;
const send = (args: string[]) => runCli(['webhook', 'send', '--url', app.url, '--secret', SECRET, ...args]);
beforeAll(() => ensureBuilt());
beforeEach(async () => (app = await startPartnerApp('Service', SECRET)));
afterEach(() => app.close());

describe('card-sandbox webhook send', () => {
  it('--type signs a sample event so that the package verifier accepts it, with Event-Id and Event-Type headers', async () => {
    const r = await send(['--type', 'transaction.updated']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^transaction\.updated evt_\w+ -> http:\/\/127\.0\.0\.1:\d+\/hooks \[200\]/);
    const [d] = app.deliveries;
    expect(d.verified).toBe(true);
    const body = JSON.parse(d.rawBody);
    expect(body).toMatchObject({ type: 'transaction.updated', data: { status: 'CLEARED', previousStatus: 'PENDING' } });
    expect(d.headers['service-event-id']).toBe(body.id);
    expect(d.headers['service-event-type']).toBe('transaction.updated');
    expect(d.headers['service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it('--file sends any body byte for byte, signed; --header-prefix renames the headers', async () => {
    await app.close();
    app = await startPartnerApp('Acme', SECRET);
    const file = join(mkdtempSync(join(tmpdir(), 'send-')), 'odd.json');
    const raw = '{"id":"evt_custom","type":"card.exploded",  "data":{"x":1}}\n';
    writeFileSync(file, raw);
    const r = await send(['--file', file, '--header-prefix', 'Acme']);
    expect(r.code, r.stderr).toBe(0);
    rmSync(dirname(file), { recursive: true, force: true });
    expect(app.deliveries[0]).toMatchObject({ rawBody: raw, verified: true });
    expect(app.deliveries[0].headers).toMatchObject({
      'acme-event-id': 'evt_custom',
      'acme-event-type': 'card.exploded',
    });
  });

  it('prints the receiver status and exits 1 when it is not 2xx (an old --timestamp is refused by the verifier)', async () => {
    const old = String(Math.floor(Date.now() / 1000) - 3600);
    const r = await send(['--type', 'card.frozen', '--timestamp', old]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/\[400\]/);
    expect(app.deliveries[0]).toMatchObject({ verified: false, reason: 'timestamp_out_of_tolerance' });
  });

  it('exits 3 when the receiver is unreachable, 2 without exactly one of --file and --type', async () => {
    const down = await runCli([
      'webhook',
      'send',
      '--url',
      'http://127.0.0.1:1/x',
      '--secret',
      SECRET,
      '--type',
      'card.created',
    ]);
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(/unreachable/);
    const neither = await runCli(['webhook', 'send', '--url', app.url, '--secret', SECRET]);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toMatch(/exactly one of --file and --type/);
    const unknown = await send(['--type', 'card.melted']);
    expect(unknown.code).toBe(2);
  });
});
