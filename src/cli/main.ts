#!/usr/bin/env node
// The card-sandbox command: each subcommand is imported only when used, so `serve` starts fast.

const USAGE = `usage: card-sandbox <command> [options]

commands:
  serve      run the sandbox server
  scenario   run scenario files: scenario run <files, directories or globs>
  verify     check any implementation of the API against the contracts
  listen     receive, verify, print and forward webhook deliveries (configures the webhook itself)
  trigger    make the sandbox emit one event of a type (trigger --list)
  webhook    webhook send: sign a file or a sample event and POST it to a receiver
  logs       logs tail: follow the account's request log
  proxy      forward traffic to a target and report every answer that breaks the contracts (--record it)
  readiness  grade your integration's side (webhook receiver, retries, keys, 429s) before production
  replay     replay a proxy recording against a sandbox and report where the answers diverge
  backup     copy a live database and its secret into new files (the server goes on serving)

Each command answers --help; card-sandbox --version prints the version.
Run it as \`npx --no-install card-sandbox\` from any folder of a project that installed the package (or of its clone),
or by its path, node_modules/.bin/card-sandbox. Keep --no-install: where the package is not installed, it stops npx, which would
otherwise fetch whatever owns the name on the npm registry (this package is not there).
`;

const commands: Record<string, () => Promise<(argv: string[]) => Promise<number>>> = {
  serve: async () => (await import('./serve.js')).runServe,
  verify: async () => (await import('./verify.js')).runVerify,
  scenario: async () => (await import('./scenario.js')).runScenarioCommand,
  listen: async () => (await import('./listen.js')).runListen,
  proxy: async () => (await import('./proxy.js')).runProxy,
  replay: async () => (await import('./replay.js')).runReplay,
  trigger: async () => (await import('./trigger.js')).runTrigger,
  webhook: async () => (await import('./webhook-send.js')).runWebhookCommand,
  logs: async () => (await import('./logs-tail.js')).runLogsCommand,
  readiness: async () => (await import('./readiness.js')).runReadiness,
  backup: async () => (await import('./backup.js')).runBackup,
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${await version()}\n`);
    return 0;
  }
  const load = commands[name];
  if (!load) {
    process.stderr.write(`card-sandbox: unknown command ${JSON.stringify(name)}\n\n${USAGE}`);
    return 2;
  }
  // `serve` writes through its logger, which redacts, and prints the ready account's key once on purpose.
  if (name !== 'serve') {
    const { commandRedactor, redactOutput } = await import('./output.js');
    redactOutput(commandRedactor(rest, process.env));
  }
  return (await load())(rest);
}

/** The package's version, from its package.json (two folders above dist/src/cli). */
async function version(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const file = new URL('../../../package.json', import.meta.url);
  return (JSON.parse(await readFile(file, 'utf8')) as { version: string }).version;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`card-sandbox: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
