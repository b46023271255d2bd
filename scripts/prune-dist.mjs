// `npm run build`, after tsc: tsc writes each module where its source is and never removes what a moved or deleted
// source left behind. A stale module in dist/src would ship in the package, and a path that once named it could still
// load it. So every output whose source is gone is removed here, after tsc has written the new ones: the build never
// empties dist/src, so a test or a server starting from it meanwhile finds every file it needs. The bundle's chunks
// (dist/src/chunks/) are the bundle script's own.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST_SRC = join(ROOT, 'dist', 'src');
const OUTPUT = /\.(?:js|d\.ts|js\.map|d\.ts\.map)$/;

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (path !== join(DIST_SRC, 'chunks')) yield* files(path);
    } else yield path;
  }
}

if (existsSync(DIST_SRC)) {
  for (const file of files(DIST_SRC)) {
    if (!OUTPUT.test(file)) continue;
    const stem = join(ROOT, 'src', relative(DIST_SRC, file).replace(OUTPUT, ''));
    if (!['.ts', '.tsx'].some((ext) => existsSync(stem + ext))) rmSync(file);
  }
  // Folders left empty by a move.
  for (const dir of [...readdirSync(DIST_SRC, { recursive: true, withFileTypes: true })].reverse()) {
    const path = join(dir.parentPath, dir.name);
    if (dir.isDirectory() && readdirSync(path).length === 0) rmSync(path, { recursive: true });
  }
}
