// `npm start`: builds dist/ only when a source file is newer than what was compiled from it, then runs the bundled
// CLI (dist/src/cli/main.js, bundled after tsc by scripts/bundle.mjs) in this same process with this script's
// arguments (`node scripts/start.mjs serve --db ...`). A start after an unchanged checkout so costs a directory walk
// (a few ms), not a full tsc run (8-37 s), and one Node start, not two. tsc rewrites every output on each build, so
// comparing each src/*.ts with its dist/src/*.js is exact enough; a changed tsconfig, package.json (dependencies) or
// bundle script also triggers a build. The bundle is written last, so its age is the build's.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CONFIG_FILES = [
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'scripts/bundle.mjs',
  'scripts/prune-dist.mjs',
];

/** mtime in ms, or -1 when the file does not exist. */
function mtimeMs(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
}

/** Every .ts/.tsx source under dir (declaration files have no output of their own). */
function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** The first reason dist/ is stale, or null when it is fresh. */
function staleReason() {
  const main = join(ROOT, 'dist/src/cli/main.js');
  const built = mtimeMs(main);
  if (built < 0) return 'dist/ is missing';
  for (const file of CONFIG_FILES) if (mtimeMs(join(ROOT, file)) > built) return `${file} changed`;
  for (const source of sources(join(ROOT, 'src'))) {
    const output = join(ROOT, 'dist', relative(ROOT, source)).replace(/\.tsx?$/, '.js');
    if (mtimeMs(source) > mtimeMs(output)) return `${relative(ROOT, source)} changed`;
  }
  return null;
}

const reason = staleReason();
if (reason) {
  process.stderr.write(`building dist/ (${reason})\n`);
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
}
// The CLI reads process.argv.slice(2), which is this script's own arguments.
await import(pathToFileURL(join(ROOT, 'dist/src/cli/main.js')).href);
