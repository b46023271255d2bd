// Another commit's build, for side-by-side runs (bench/compare.mjs): a detached git worktree under bench/tmp/, with
// this checkout's node_modules linked in when the commit's package-lock.json pins the same versions (else `npm ci`
// there), then `npm run build`. `remove()` takes the worktree away again.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';

const git = (args, cwd) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** The commit `ref` names (full sha) and its subject line; throws on an unknown ref. */
export function describeCommit(ref, cwd = process.cwd()) {
  const sha = git(['rev-parse', '--verify', `${ref}^{commit}`], cwd);
  return { ref, sha, short: sha.slice(0, 7), subject: git(['log', '-1', '--format=%s', sha], cwd) };
}

/** This checkout: its commit, and whether the working tree differs from it (the build under test is the tree). */
export function describeCheckout(cwd = process.cwd()) {
  const head = describeCommit('HEAD', cwd);
  const dirty = git(['status', '--porcelain', '--untracked-files=no'], cwd) !== '';
  return { ...head, ref: dirty ? 'HEAD + uncommitted changes' : 'HEAD', dirty };
}

/**
 * The packages of `theirs` whose version differs from `ours` (both parsed package-lock.json files, lockfile v2/v3):
 * empty when this checkout's node_modules holds exactly what the other commit pins.
 */
function lockDifferences(ours, theirs) {
  const out = [];
  for (const [path, pkg] of Object.entries(theirs.packages ?? {})) {
    if (path === '' || pkg.link) continue;
    const mine = ours.packages?.[path];
    if (!mine || mine.version !== pkg.version) out.push(`${path.replace(/^node_modules\//, '')}@${pkg.version}`);
  }
  return out;
}

/** Checks out `commit` under `dir`, gives it its dependencies and builds it; returns its directory and a remover. */
export function buildCommit(commit, dir, log = console.error) {
  const root = process.cwd();
  const at = resolve(dir);
  removeWorktree(at, root);
  git(['worktree', 'add', '--detach', at, commit.sha], root);
  const remove = () => removeWorktree(at, root);
  try {
    const ours = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
    const lockFile = join(at, 'package-lock.json');
    const differs = existsSync(lockFile)
      ? lockDifferences(ours, JSON.parse(readFileSync(lockFile, 'utf8')))
      : ['(no lock)'];
    if (differs.length === 0) {
      log(`${commit.short}: its package-lock pins what node_modules holds; linking it`);
      symlinkSync(join(root, 'node_modules'), join(at, 'node_modules'), 'dir');
    } else {
      log(`${commit.short}: ${differs.length} packages differ (${differs.slice(0, 5).join(', ')}...); npm ci there`);
      execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: at, stdio: ['ignore', 'ignore', 'inherit'] });
    }
    log(`${commit.short}: npm run build`);
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: at, stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (err) {
    remove();
    throw err;
  }
  return { dir: at, remove };
}

function removeWorktree(at, root) {
  // The link first, on its own: nothing below may ever reach into this checkout's node_modules through it.
  const link = join(at, 'node_modules');
  if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(link);
  if (existsSync(at)) {
    try {
      git(['worktree', 'remove', '--force', at], root);
    } catch {
      rmSync(at, { recursive: true, force: true });
    }
  }
  git(['worktree', 'prune'], root);
}
