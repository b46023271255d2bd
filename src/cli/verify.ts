import { writeFileSync } from 'node:fs';
import { parseDecimal } from '../domain/kernel/money.js';
import { parseCommand, usageError, type CommandSpec } from './args.js';
import { requireTarget, targetOptions } from './target-options.js';
import { CATALOGUE } from '../verify/checks/index.js';
import type { Validator } from '../verify/context.js';
import { ChildRefused, KeyRefused, TargetUnreachable } from '../verify/http.js';
import { formatResult, junit, summary } from '../verify/report.js';
import { runChecks } from '../verify/runner.js';

export const VERIFY_SPEC = {
  command: 'card-sandbox verify',
  synopsis: '--base-url URL --api-key KEY [options]',
  summary:
    'Checks any implementation of the API (this sandbox, a staging or the production service) against the contracts.',
  options: {
    ...targetOptions({ baseUrl: 'the implementation to check', apiKey: 'its API key' }),
    'allow-mutations': {
      type: 'boolean',
      help: 'also create, top up, freeze and cancel a card, and test idempotency (spends real funds on a production target, at most --max-spend; on this sandbox, in a child sandbox deleted after)',
    },
    'max-spend': { type: 'string', arg: 'N', help: 'USDT a run may move out of the wallet (default 10)' },
    strict: { type: 'boolean', help: 'flag fields the contracts do not have' },
    junit: { type: 'string', arg: 'FILE', help: 'write a JUnit XML report' },
    only: { type: 'string', arg: 'TEXT', help: 'run only the checks whose name contains TEXT' },
    properties: { type: 'boolean', help: 'also the model-based property run (sandbox targets only)' },
    'num-runs': { type: 'string', arg: 'N', help: 'sequences in the property run (default 50)' },
    seed: { type: 'string', arg: 'N', help: "replay a property run's seed" },
    'timeout-ms': { type: 'string', arg: 'N', help: 'per request (default 10000)' },
  },
  footer: 'exit codes: 0 all checks passed, 1 violations, 2 usage, 3 target unreachable or the key refused',
} as const satisfies CommandSpec;

/** The contracts registry, loaded only here so the server never pays for it. */
async function loadValidator(): Promise<Validator> {
  return await import('../contracts/registry.js');
}

type Sink = { write(text: string): unknown };

export async function runVerify(
  argv: string[],
  out: Sink = process.stdout,
  err: Sink = process.stderr,
): Promise<number> {
  const parsed = parseCommand(VERIFY_SPEC, argv, out, err);
  if (!parsed.ok) return parsed.exitCode;
  const { values } = parsed;
  const target = requireTarget(values);
  const maxSpend = parseDecimal(values['max-spend'] ?? '10');
  const timeoutMs = Number(values['timeout-ms'] ?? '10000');
  if ('problem' in target) return usageError(VERIFY_SPEC, target.problem, err).exitCode;
  const problem =
    maxSpend === null
      ? '--max-spend must be a decimal amount'
      : !Number.isInteger(timeoutMs) || timeoutMs <= 0
        ? '--timeout-ms must be a positive integer'
        : undefined;
  if (problem) return usageError(VERIFY_SPEC, problem, err).exitCode;
  const { baseUrl, apiKey } = target;
  const numRuns = Number(values['num-runs'] ?? '50');
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  if (!Number.isInteger(numRuns) || numRuns < 1 || (seed !== undefined && !Number.isInteger(seed))) {
    return usageError(VERIFY_SPEC, '--num-runs and --seed must be integers', err).exitCode;
  }
  const all = values.properties
    ? [...CATALOGUE, (await import('../verify/properties/run.js')).propertyCheck({ numRuns, seed })]
    : CATALOGUE;
  const catalogue = values.only ? all.filter((c) => c.name.includes(values.only!)) : all;
  try {
    const report = await runChecks(
      { baseUrl: baseUrl!, apiKey: apiKey!, timeoutMs },
      {
        strict: values.strict ?? false,
        allowMutations: values['allow-mutations'] ?? false,
        maxSpendMicros: maxSpend!,
        validator: await loadValidator(),
      },
      catalogue,
      (r) => out.write(`${formatResult(r)}\n`),
    );
    if (report.childSandbox) out.write(`\nRan in child sandbox ${report.childSandbox}, deleted after the run.\n`);
    out.write(`\n${summary(report)}\n`);
    if (values.junit) writeFileSync(values.junit, junit(report));
    return report.results.some((r) => r.status === 'fail') ? 1 : 0;
  } catch (e) {
    if (e instanceof TargetUnreachable) {
      err.write(`card-sandbox verify: target unreachable: ${e.message}\n`);
      return 3;
    }
    if (e instanceof ChildRefused) {
      err.write(`card-sandbox verify: ${e.message}\n`);
      return 1;
    }
    if (e instanceof KeyRefused) {
      err.write(`card-sandbox verify: ${e.message}; check --api-key (or SANDBOX_API_KEY). No check ran.\n`);
      return 3;
    }
    throw e;
  }
}
