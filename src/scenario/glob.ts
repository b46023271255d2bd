import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';

const MAGIC = /[*?[]/;
const SCENARIO_FILE = /\.ya?ml$/;

/** A glob (`*`, `**`, `?`) as a regular expression over `/`-separated relative paths. */
function globRegex(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      re += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += pattern[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(p)));
    else out.push(p);
  }
  return out;
}

/**
 * Expands file arguments: a directory becomes its `*.yaml` and `*.yml` files (recursively), plain paths pass through (a missing one is then reported by the loader), globs match
 * files under their fixed leading directory, sorted so runs are reproducible. Node 20 has no fs.glob.
 */
export async function expandFiles(args: string[], cwd = process.cwd()): Promise<string[]> {
  const out: string[] = [];
  for (const arg of args) {
    if (!MAGIC.test(arg)) {
      // A directory stands for every scenario file under it; any other path is passed on for the loader to read.
      const isDir = await stat(resolve(cwd, arg)).then(
        (s) => s.isDirectory(),
        () => false,
      );
      if (isDir) {
        const files = (await walk(resolve(cwd, arg))).filter((f) => SCENARIO_FILE.test(f));
        out.push(...files.map((f) => relative(cwd, f).split(sep).join('/')).sort());
      } else out.push(arg);
      continue;
    }
    const segments = arg.split('/');
    const fixed = segments
      .slice(
        0,
        segments.findIndex((s) => MAGIC.test(s)),
      )
      .join('/');
    const re = globRegex(arg.replace(/^\.\//, ''));
    const files = (await walk(join(cwd, fixed || '.')))
      .map((f) => relative(cwd, f).split(sep).join('/'))
      .filter((f) => re.test(f))
      .sort();
    out.push(...files);
  }
  return [...new Set(out)];
}
