import { writeFile } from 'node:fs/promises';
import { parseCommand, runGroup, usageError, type CommandSpec } from './args.js';
import { readTarget, targetOptions } from './target-options.js';
import { expandFiles } from '../scenario/glob.js';
import { consoleReport, fileBlock, fileErrorsReport, junitReport, tapReport } from '../scenario/report.js';
import { loadAll, runScenarios } from '../scenario/runner.js';
import { embeddedTarget } from './embedded-target.js';

export const SCENARIO_RUN_SPEC = {
  command: 'card-sandbox scenario run',
  synopsis: '<files, directories or globs...> [options]',
  summary:
    'Runs scenario files (a directory runs every *.yaml and *.yml under it). Without --base-url each file gets its own in-process sandbox.',
  allowPositionals: true,
  options: {
    ...targetOptions({
      baseUrl: 'run against a running sandbox',
      apiKey:
        "with --base-url: a child sandbox per file is made with this key and deleted after, so the key's own account is never changed",
    }),
    'admin-token': {
      type: 'string',
      arg: 'TOKEN',
      help: 'make a fresh account per file through the operator API instead (env SANDBOX_ADMIN_TOKEN)',
    },
    'receiver-host': {
      type: 'string',
      arg: 'HOST',
      help: 'the address the sandbox uses to reach the webhook receiver (default 127.0.0.1)',
    },
    junit: { type: 'string', arg: 'FILE', help: 'also write a JUnit XML report' },
    tap: { type: 'boolean', help: 'print TAP instead of the human report' },
    concurrency: { type: 'string', arg: 'N', help: 'files run at once' },
  },
  footer: 'exit codes: 0 every file passed, 1 a failure, 2 usage',
} as const satisfies CommandSpec;

/** `card-sandbox scenario`: one sub-command, `run`. */
export function runScenarioCommand(argv: string[]): Promise<number> {
  return runGroup(
    {
      command: 'card-sandbox scenario',
      summary: 'Scenario files: YAML steps run against a sandbox, with a report (human, TAP, JUnit).',
      subcommands: { run: { summary: 'run scenario files, directories or globs', run: runScenarioRun } },
    },
    argv,
  );
}

/** `card-sandbox scenario run`: exit 0 when every file passed, 1 on any failure, 2 on a usage error. */
export async function runScenarioRun(argv: string[]): Promise<number> {
  const parsed = parseCommand(SCENARIO_RUN_SPEC, argv);
  if (!parsed.ok) return parsed.exitCode;
  const { values, positionals } = parsed;
  const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1)) {
    return usageError(SCENARIO_RUN_SPEC, '--concurrency must be a positive integer').exitCode;
  }
  const files = await expandFiles(positionals);
  if (files.length === 0) {
    return usageError(SCENARIO_RUN_SPEC, 'no scenario files matched').exitCode;
  }
  const loaded = await loadAll(files);
  if (!loaded.ok) {
    process.stderr.write(fileErrorsReport(loaded.errors));
    return 1;
  }
  const env = process.env;
  // Both optional here: without a base URL each file gets its own in-process sandbox.
  const { baseUrl, apiKey } = readTarget(values, env);
  const started = performance.now();
  const results = await runScenarios(loaded.scenarios, {
    baseUrl,
    apiKey,
    embedded: () => embeddedTarget(),
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
