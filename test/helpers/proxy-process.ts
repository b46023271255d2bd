import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnCli, type ServeProcess } from './cli-process.js';

// The compiled `card-sandbox proxy` as a partner runs it, with every output going to a file of a fresh folder. The
// folders go when the test file that made them is done (test/setup/per-file.ts).

const folders: string[] = [];

/** Removes every folder the proxies of this test file wrote. */
export function removeProxyFolders(): void {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface ProxyProcess extends ServeProcess {
  url: string;
  files: { report: string; junit: string; record: string };
  /** Each output as text: stdout, and the files once written. */
  outputs(): Record<'stdout' | 'report' | 'junit' | 'record', string>;
}

export async function startProxyCli(target: string, extra: string[] = []): Promise<ProxyProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-cli-'));
  folders.push(dir);
  const files = { report: join(dir, 'report.jsonl'), junit: join(dir, 'junit.xml'), record: join(dir, 'record.jsonl') };
  const proc = spawnCli([
    'proxy',
    '--target',
    target,
    '--port',
    '0',
    '--report',
    files.report,
    '--junit',
    files.junit,
    '--record',
    files.record,
    ...extra,
  ]);
  const [, url] = await proc.waitForOutput(/listening on (http:\S+)/);
  const read = (f: string) => {
    try {
      return readFileSync(f, 'utf8');
    } catch {
      return '';
    }
  };
  return {
    ...proc,
    url: url!,
    files,
    outputs: () => ({
      stdout: proc.stdout(),
      report: read(files.report),
      junit: read(files.junit),
      record: read(files.record),
    }),
  };
}

export const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);
