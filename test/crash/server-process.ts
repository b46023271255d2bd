import { spawn, type ChildProcess } from 'node:child_process';
import { dirname } from 'node:path';
import { existsSync } from 'node:fs';
import { waitFor } from '../helpers/wait.js';

const MAIN = 'dist/src/cli/main.js';
export const ADMIN_TOKEN = 'crash-admin-token';

/** A real `card-sandbox serve` on a file database, killed and restarted by the crash test. */
export class ServerProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> | undefined;
  readonly url: string;

  constructor(
    private readonly dbPath: string,
    private readonly port: number,
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  async start(): Promise<void> {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
    const child = spawn(
      process.execPath,
      [
        MAIN,
        'serve',
        '--db',
        this.dbPath,
        '--port',
        String(this.port),
        '--admin-token',
        ADMIN_TOKEN,
        '--log-level',
        'warn',
      ],
      // SQLite's temp files go beside the database, in the folder the test removes: a kill can land between
      // creating one and unlinking it, which left an etilqs_* file in the run's temp folder.
      {
        env: { ...process.env, SANDBOX_BOOTSTRAP: 'false', SQLITE_TMPDIR: dirname(this.dbPath) },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr = (stderr + String(d)).slice(-4000)));
    this.child = child;
    this.exited = new Promise((resolve) => child.on('exit', () => resolve()));
    await waitFor(`${this.url}/healthz`, async () => {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${stderr}`);
      return fetch(`${this.url}/healthz`).then(
        (res) => res.status === 200,
        () => false, // not listening yet
      );
    }).catch((err: Error) => {
      throw new Error(`${err.message}\n${stderr}`);
    });
  }

  /** SIGKILL: no shutdown hook runs, no WAL checkpoint, requests cut mid-flight. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (!this.child) return;
    this.child.kill(signal);
    await this.exited;
    this.child = undefined;
  }
}
