// The scenario library run through the compiled CLI, each file on its own in-process sandbox: how long a partner
// waits for `npm run scenarios`. (A test used to assert this under 10 s; a busy machine made it fail, so the figure
// lives here.)
import { spawn } from 'node:child_process';

/** Wall time of `node dist/src/cli/main.js scenario run 'scenarios/*.yaml'`, in ms; throws when a file fails. */
export async function scenarioLibrary() {
  const startedAt = performance.now();
  const child = spawn(process.execPath, ['dist/src/cli/main.js', 'scenario', 'run', 'scenarios/*.yaml'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`scenario run exited ${code}:\n${stderr}`);
  return { ms: performance.now() - startedAt };
}
