// Cold start: `node dist/src/cli/main.js serve` from spawn to the first 200 on /healthz.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startNode } from './procs.mjs';

/** Runs `rounds` starts on a fresh database and `rounds` on an existing one; medians and maxima in ms. */
export async function coldStart(rounds = 5) {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-cold-'));
  const out = { fresh: [], existing: [] };
  try {
    for (const kind of ['fresh', 'existing']) {
      for (let i = 0; i < rounds; i++) {
        const db = join(dir, kind === 'fresh' ? `fresh-${i}.db` : 'existing.db');
        const port = await freePort();
        // The defaults of `npm start` (local mode, bootstrap account on an empty database), logs silenced.
        const s = await startNode(
          ['dist/src/cli/main.js', 'serve', '--db', db, '--port', String(port), '--log-level', 'warn'],
          {
            healthUrl: `http://127.0.0.1:${port}/healthz`,
          },
        );
        out[kind].push(s.startMs);
        await s.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return { median: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
  };
  return { fresh: stats(out.fresh), existing: stats(out.existing) };
}
