import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseDecimal } from '../domain/money.js';
import { CATALOGUE } from '../verify/checks/index.js';
import type { Validator } from '../verify/context.js';
import { TargetUnreachable } from '../verify/http.js';
import { formatResult, junit, summary } from '../verify/report.js';
import { runChecks } from '../verify/runner.js';

const USAGE = `usage: card-sandbox verify --base-url URL --api-key KEY [options]

  --allow-mutations   also create, top up, freeze and cancel a card, and test idempotency (spends real funds
                      on a production target, at most --max-spend)
  --max-spend N       USDT a run may move out of the wallet (default 10)
  --strict            flag fields the contracts do not have
  --junit FILE        write a JUnit XML report
  --only TEXT         run only the checks whose name contains TEXT
  --properties        also the model-based property run (sandbox targets only; resets the account)
  --num-runs N        sequences in the property run (default 50)
  --seed N            replay a property run's seed
  --timeout-ms N      per request (default 10000)

exit codes: 0 all checks passed, 1 violations, 2 usage, 3 target unreachable
`;

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
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        'allow-mutations': { type: 'boolean', default: false },
        'max-spend': { type: 'string', default: '10' },
        strict: { type: 'boolean', default: false },
        junit: { type: 'string' },
        only: { type: 'string' },
        properties: { type: 'boolean', default: false },
        'num-runs': { type: 'string', default: '50' },
        seed: { type: 'string' },
        'timeout-ms': { type: 'string', default: '10000' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    err.write(`card-sandbox verify: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    out.write(USAGE);
    return 0;
  }
  const baseUrl = values['base-url'];
  const apiKey = values['api-key'] ?? process.env.SANDBOX_API_KEY;
  const maxSpend = parseDecimal(values['max-spend']);
  const timeoutMs = Number(values['timeout-ms']);
  const problem = !baseUrl
    ? '--base-url is required'
    : !/^https?:\/\//.test(baseUrl)
      ? '--base-url must be an http(s) URL'
      : !apiKey
        ? '--api-key (or SANDBOX_API_KEY) is required'
        : maxSpend === null
          ? '--max-spend must be a decimal amount'
          : !Number.isInteger(timeoutMs) || timeoutMs <= 0
            ? '--timeout-ms must be a positive integer'
            : undefined;
  if (problem) {
    err.write(`card-sandbox verify: ${problem}\n\n${USAGE}`);
    return 2;
  }
  const numRuns = Number(values['num-runs']);
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  if (!Number.isInteger(numRuns) || numRuns < 1 || (seed !== undefined && !Number.isInteger(seed))) {
    err.write(`card-sandbox verify: --num-runs and --seed must be integers\n\n${USAGE}`);
    return 2;
  }
  const all = values.properties
    ? [...CATALOGUE, (await import('../verify/properties/run.js')).propertyCheck({ numRuns, seed })]
    : CATALOGUE;
  const catalogue = values.only ? all.filter((c) => c.name.includes(values.only!)) : all;
  try {
    const report = await runChecks(
      { baseUrl: baseUrl!, apiKey: apiKey!, timeoutMs },
      {
        strict: values.strict,
        allowMutations: values['allow-mutations'],
        maxSpendMicros: maxSpend!,
        validator: await loadValidator(),
      },
      catalogue,
      (r) => out.write(`${formatResult(r)}\n`),
    );
    out.write(`\n${summary(report)}\n`);
    if (values.junit) writeFileSync(values.junit, junit(report));
    return report.results.some((r) => r.status === 'fail') ? 1 : 0;
  } catch (e) {
    if (e instanceof TargetUnreachable) {
      err.write(`card-sandbox verify: target unreachable: ${e.message}\n`);
      return 3;
    }
    throw e;
  }
}
