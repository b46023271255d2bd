import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli } from '../helpers/cli-process.js';

// docs/design.md section 12: every command answers --help with its usage and exit 0; an unknown option is a usage error, exit 2.

const COMMANDS = [
  [],
  ['serve'],
  ['scenario'],
  ['scenario', 'run'],
  ['verify'],
  ['listen'],
  ['trigger'],
  ['webhook'],
  ['webhook', 'send'],
  ['logs'],
  ['logs', 'tail'],
  ['proxy'],
  ['replay'],
  ['readiness'],
  ['backup'],
];

beforeAll(() => ensureBuilt());

describe('card-sandbox --help', () => {
  it.each(COMMANDS.map((c) => [c.join(' ') || '(no command)', c] as const))(
    '%s answers --help and -h with its usage on stdout and exit 0',
    async (_name, command) => {
      for (const flag of ['--help', '-h']) {
        const r = await runCli([...command, flag]);
        expect(r.code, `${command.join(' ')} ${flag}: ${r.stderr}`).toBe(0);
        expect(r.stdout).toMatch(new RegExp(`^usage: card-sandbox ${command.join(' ')}`));
        expect(r.stderr).toBe('');
      }
    },
  );

  it.each(COMMANDS.filter((c) => c.length > 0).map((c) => [c.join(' '), c] as const))(
    '%s refuses an unknown option with the usage on stderr and exit 2',
    async (_name, command) => {
      const r = await runCli([...command, '--no-such-option']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--no-such-option/);
      expect(r.stderr).toMatch(/usage: card-sandbox/);
    },
  );

  it("an option listed in a command's help is one it accepts (the help and the parser share one declaration)", async () => {
    const help = (await runCli(['webhook', 'send', '--help'])).stdout;
    expect(help).toMatch(/--timestamp UNIX/);
    const r = await runCli(['webhook', 'send', '--timestamp', '1', '--url', 'http://127.0.0.1:1', '--secret', 'x']);
    expect(r.stderr).not.toMatch(/Unknown option/);
    expect(r.code).toBe(2);
  });

  it('--version prints the package version and exits 0', async () => {
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as {
      version: string;
    };
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
  });
});
