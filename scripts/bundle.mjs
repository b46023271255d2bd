// The card-sandbox command as partners run it: tsc's dist/src/cli/main.js and everything of ours it imports, bundled
// by esbuild into that same file and its chunks in dist/src/chunks/. Why: `serve` spent most of its start opening,
// reading and linking some 210 small ES modules one by one (cold start 2.1-2.2x a bare Hono + better-sqlite3
// server; bundled, 1.5-1.7x). Each subcommand and each module a command loads on first use stays a chunk of its own
// (`splitting`), so `serve` still loads no scenario, verify or console code before it listens. Packages stay
// external: node_modules is resolved at run time as before, so tronweb, ajv and prom-client still load only when
// first needed.
//
// The command keeps its path (package.json `bin`): npx links a project's own bin once, in its cache, and a link to
// a path a later build no longer writes would outlive the upgrade. dist/src/chunks/ sits as deep as dist/src/cli/,
// so the few paths our code resolves against its own file (`new URL('../logging/log-writer.js', import.meta.url)`,
// the package.json three folders up, the contracts found by walking up) mean the same from a chunk as from the
// module tsc wrote. The bundle is built from tsc's output rather than from the sources, so it runs exactly the
// JavaScript tsc wrote; its source map chains back to src/.
import { build } from 'esbuild';
import { chmodSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist/src');
const COMMAND = join(DIST, 'cli/main.js');
const MARK = '// Bundled by scripts/bundle.mjs from what tsc wrote here.';

// The bundle replaces tsc's main.js: bundling it again would bundle the bundle, whose chunks are about to go.
if (readFileSync(COMMAND, 'utf8').includes(MARK)) {
  console.error('dist/src/cli/main.js is already the bundle: `npm run build` compiles it again first');
  process.exit(1);
}
// Chunk names carry a content hash: without this a rebuild would leave the last build's chunks beside the new ones.
rmSync(join(DIST, 'chunks'), { recursive: true, force: true });
await build({
  entryPoints: { 'cli/main': COMMAND },
  outdir: DIST,
  chunkNames: 'chunks/[name]-[hash]',
  allowOverwrite: true,
  banner: { js: MARK },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
chmodSync(COMMAND, 0o755);
