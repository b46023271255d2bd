import { ProxyOutputs } from '../proxy/outputs.js';
import { DEFAULT_TIMEOUT_MS, startProxy } from '../proxy/server.js';
import { parseCommand, usageError, type CommandSpec } from './args.js';

export const PROXY_SPEC = {
  command: 'card-sandbox proxy',
  synopsis: '--target URL [--port P] [--report FILE.jsonl] [--junit FILE] [--record FILE.jsonl] [options]',
  summary:
    'Forwards every request to the target unchanged and returns its answer unchanged, checking both against the contracts (bodies, status codes, required headers). Each violation prints one block. Every output is redacted: safe to point at production.',
  options: {
    target: { type: 'string', arg: 'URL', help: 'the API to check (the sandbox, or any implementation of the API)' },
    port: { type: 'string', arg: 'P', help: 'port to listen on (default 8081; 0 picks a free one)' },
    host: { type: 'string', arg: 'HOST', help: 'address to listen on (default 127.0.0.1)' },
    report: { type: 'string', arg: 'FILE.jsonl', help: 'append one JSON line per exchange, with its violations' },
    junit: { type: 'string', arg: 'FILE', help: 'write a JUnit XML report on exit (one test case per exchange)' },
    record: {
      type: 'string',
      arg: 'FILE.jsonl',
      help: 'append each exchange, redacted and without key headers, for card-sandbox replay',
    },
    'timeout-ms': {
      type: 'string',
      arg: 'N',
      help: `no byte from the target for N ms is a 504 and a violation (default ${DEFAULT_TIMEOUT_MS})`,
    },
    'fail-on-violation': { type: 'boolean', help: 'exit 1 when any violation was seen' },
    'max-requests': {
      type: 'string',
      arg: 'N',
      help: 'stop after N exchanges (scripts and CI); otherwise runs until SIGINT or SIGTERM',
    },
  },
  footer:
    'exit status: 0; 1 with --fail-on-violation when a violation was seen; 2 on a usage error\n' +
    'An answer the proxy cannot pass on (an invalid status line, a reset) is a 502 {code, message} to the client and a violation.',
} as const satisfies CommandSpec;

/** `card-sandbox proxy`: runs until a signal or --max-requests, then reports and exits. */
export async function runProxy(argv: string[]): Promise<number> {
  const parsed = parseCommand(PROXY_SPEC, argv);
  if (!parsed.ok) return parsed.exitCode;
  const { values } = parsed;
  const problem = usageProblem(values);
  if (problem) return usageError(PROXY_SPEC, problem).exitCode;
  const maxRequests = values['max-requests'] === undefined ? Infinity : Number(values['max-requests']);
  const out = (text: string) => void process.stdout.write(text);

  const outputs = new ProxyOutputs({
    out,
    reportFile: values.report,
    junitFile: values.junit,
    recordFile: values.record,
  });
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));

  const proxy = await startProxy({
    target: values.target!,
    port: values.port === undefined ? 8081 : Number(values.port),
    host: values.host,
    timeoutMs: values['timeout-ms'] === undefined ? DEFAULT_TIMEOUT_MS : Number(values['timeout-ms']),
    onExchange(exchange, found) {
      try {
        outputs.observe(exchange, found);
      } catch (err) {
        // A full disk must not stop the traffic the proxy stands in front of.
        process.stderr.write(`card-sandbox proxy: could not write a report: ${(err as Error).message}\n`);
      }
      if (outputs.exchanges >= maxRequests) finish();
    },
  });
  out(`proxy listening on ${proxy.url} -> ${shownTarget(values.target!)}\n`);
  const onSignal = () => finish();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  await finished;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  await proxy.close();
  outputs.finish();
  out(outputs.summary() + '\n');
  return values['fail-on-violation'] && outputs.violations > 0 ? 1 : 0;
}

/** The target as printed: without credentials in its user part or a query (a production URL may carry either). */
function shownTarget(target: string): string {
  const u = new URL(target);
  return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
}

function usageProblem(values: {
  target?: string;
  port?: string;
  'max-requests'?: string;
  'timeout-ms'?: string;
}): string | undefined {
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
  if (values['timeout-ms'] !== undefined && !/^[1-9]\d*$/.test(values['timeout-ms']))
    return '--timeout-ms must be a positive integer';
  return undefined;
}
