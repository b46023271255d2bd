// `npm run build`, first step: tsc writes each module where its source is and never removes what a moved or deleted
// source left behind, so a build starts from an empty dist/src. A stale module there would ship in the package and
// could still be loaded by a path that once named it.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

rmSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'src'), { recursive: true, force: true });
