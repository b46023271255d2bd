import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { expandFiles } from '../scenario/glob.js';
import { consoleReport, fileBlock, fileErrorsReport, junitReport, tapReport } from '../scenario/report.js';
import { loadAll, runScenarios } from '../scenario/runner.js';

const USAGE = `usage: card-sandbox scenario run <files or globs...> [options]

  --base-url URL        run against a running sandbox (default: an in-process sandbox per file)
  --api-key KEY         the account to use when no admin token is given (env SANDBOX_API_KEY)
  --admin-token TOKEN   make a fresh account per file through the operator API (env SANDBOX_ADMIN_TOKEN)
  --receiver-host HOST  the address the sandbox uses to reach the webhook receiver (default 127.0.0.1)
  --junit FILE          also write a JUnit XML report
  --tap                 print TAP instead of the human report
  --concurrency N       files run at once
`;

/** `card-sandbox scenario run`: exit 0 when every file passed, 1 on any failure, 2 on a usage error. */
export async function runScenarioCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'run') {
    process.stderr.write(USAGE);
    return 2;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        'admin-token': { type: 'string' },
        'receiver-host': { type: 'string' },
        junit: { type: 'string' },
        tap: { type: 'boolean' },
        concurrency: { type: 'string' },
      },
    });
  } catch (err) {
    process.stderr.write(`card-sandbox scenario: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1)) {
    process.stderr.write(`card-sandbox scenario: --concurrency must be a positive integer\n`);
    return 2;
  }
  const files = await expandFiles(positionals);
  if (files.length === 0) {
    process.stderr.write(`card-sandbox scenario: no scenario files matched\n\n${USAGE}`);
    return 2;
  }
  const loaded = await loadAll(files);
  if (!loaded.ok) {
    process.stderr.write(fileErrorsReport(loaded.errors));
    return 1;
  }
  const env = process.env;
  const baseUrl = values['base-url'] ?? (env.SANDBOX_BASE_URL || undefined);
  const started = performance.now();
  const results = await runScenarios(loaded.scenarios, {
    baseUrl,
    apiKey: values['api-key'] ?? (env.SANDBOX_API_KEY || undefined),
    adminToken: values['admin-token'] ?? (env.SANDBOX_ADMIN_TOKEN || undefined),
    receiverHost: values['receiver-host'],
    concurrency,
    // The human report streams each file's block as it finishes; TAP needs the plan first, so it waits.
    onFile: values.tap ? undefined : (r) => process.stdout.write(fileBlock(r)),
  });
  const totalMs = Math.round(performance.now() - started);
  process.stdout.write(values.tap ? tapReport(results) : consoleReport(results, totalMs, { blocks: false }));
  if (values.junit) await writeFile(values.junit, junitReport(results));
  return results.every((r) => r.ok) ? 0 : 1;
}
