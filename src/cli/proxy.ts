import { appendFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Violation } from '../proxy/check.js';
import { exchangeRecord, junitReport, violationBlock, type ExchangeRecord } from '../proxy/report.js';
import { startProxy } from '../proxy/server.js';

const USAGE = `usage: card-sandbox proxy --target URL [options]

Forwards every request to the target unchanged and returns its answer unchanged, checking both against the
contracts (bodies, status codes, required headers). Each violation prints one block.

  --target URL          the API to check (the sandbox, or any implementation of the API)
  --port P              port to listen on (default 8081; 0 picks a free one)
  --host HOST           address to listen on (default 127.0.0.1)
  --report FILE.jsonl   append one JSON line per exchange, with its violations
  --junit FILE          write a JUnit XML report on exit (one test case per exchange)
  --fail-on-violation   exit 1 when any violation was seen
  --max-requests N      stop after N exchanges (scripts and CI); otherwise runs until SIGINT or SIGTERM

exit status: 0; 1 with --fail-on-violation when a violation was seen; 2 on a usage error
`;

/** `card-sandbox proxy`: runs until a signal or --max-requests, then reports and exits. */
export async function runProxy(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        target: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        report: { type: 'string' },
        junit: { type: 'string' },
        'fail-on-violation': { type: 'boolean' },
        'max-requests': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    process.stderr.write(`card-sandbox proxy: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const problem = usageProblem(values);
  if (problem) {
    process.stderr.write(`card-sandbox proxy: ${problem}\n\n${USAGE}`);
    return 2;
  }
  const maxRequests = values['max-requests'] === undefined ? Infinity : Number(values['max-requests']);
  if (values.report) writeFileSync(values.report, '');

  const records: ExchangeRecord[] = [];
  let violations = 0;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));

  const proxy = await startProxy({
    target: values.target!,
    port: values.port === undefined ? 8081 : Number(values.port),
    host: values.host,
    onExchange(exchange, found: Violation[]) {
      const record = exchangeRecord(exchange, found);
      records.push(record);
      violations += found.length;
      for (const v of found) process.stdout.write(violationBlock(v) + '\n');
      if (values.report) appendFileSync(values.report, JSON.stringify(record) + '\n');
      if (records.length >= maxRequests) finish();
    },
  });
  process.stdout.write(`proxy listening on ${proxy.url} -> ${values.target}\n`);
  const onSignal = () => finish();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  await finished;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  await proxy.close();
  if (values.junit) writeFileSync(values.junit, junitReport(records));
  const failed = records.filter((r) => r.violations.length > 0).length;
  process.stdout.write(
    `proxy: ${records.length} exchanges, ${failed} with violations, ${violations} violations in all\n`,
  );
  return values['fail-on-violation'] && violations > 0 ? 1 : 0;
}

function usageProblem(values: { target?: string; port?: string; 'max-requests'?: string }): string | undefined {
  if (!values.target) return '--target is required';
  try {
    const u = new URL(values.target);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return '--target must be an http or https URL';
  } catch {
    return '--target must be a URL';
  }
  if (values.port !== undefined && !/^\d+$/.test(values.port)) return '--port must be a number';
  if (values['max-requests'] !== undefined && !/^[1-9]\d*$/.test(values['max-requests']))
    return '--max-requests must be a positive integer';
  return undefined;
}
