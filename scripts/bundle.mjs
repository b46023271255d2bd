// The card-sandbox command as partners run it: tsc's dist/src/cli/main.js and everything of ours it imports, bundled
// into dist/src/bin/. Why: `serve` spent most of its start opening, reading and linking some 210 small ES modules one
// by one (cold start 2.1-2.2x a bare Hono + better-sqlite3 server; bundled, 1.7x). Each subcommand and each module a
// command loads on first use stays a chunk of its own (`splitting`), so `serve` still loads no scenario, verify or
// console code before it listens. Packages stay external: node_modules is resolved at run time as before, so tronweb,
// ajv and prom-client still load only when first needed.
//
// dist/src/bin/ sits as deep as dist/src/cli/, so the few paths our code resolves against its own file
// (`new URL('../logging/log-writer.js', import.meta.url)`, the package.json three folders up, the contracts found by
// walking up) mean the same from a chunk as from the module tsc wrote. The bundle is built from tsc's output rather
// than from the sources, so it runs exactly the JavaScript the tests of dist/ run; its source map chains back to src/.
import { build } from 'esbuild';
import { chmodSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN_DIR = join(ROOT, 'dist/src/bin');
const ENTRY = join(BIN_DIR, 'card-sandbox.js');

// Chunk names carry a content hash: without this a rebuild would leave the last build's chunks beside the new ones.
rmSync(BIN_DIR, { recursive: true, force: true });
await build({
  entryPoints: { 'card-sandbox': join(ROOT, 'dist/src/cli/main.js') },
  outdir: BIN_DIR,
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
chmodSync(ENTRY, 0o755);
