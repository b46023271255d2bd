import type { Exchange, Violation } from './check.js';

// How the proxy tells what it saw: a readable block per violation, a JSON line per exchange, a JUnit file.

export function violationBlock(v: Violation): string {
  return [
    `CONTRACT VIOLATION ${v.operation} (${v.direction})`,
    `  at:       ${v.pointer}`,
    `  contract: ${v.expected}`,
    `  seen:     ${v.seen}`,
    `  request:  ${v.requestId}`,
    '',
  ].join('\n');
}

export interface ExchangeRecord {
  time: string;
  requestId: string;
  method: string;
  url: string;
  status: number;
  violations: Violation[];
}

export function exchangeRecord(x: Exchange, violations: Violation[], now = new Date()): ExchangeRecord {
  return {
    time: now.toISOString(),
    requestId: x.responseHeaders['x-request-id'] ?? x.requestHeaders['x-request-id'] ?? '(none)',
    method: x.method,
    url: x.url,
    status: x.status,
    violations,
  };
}

const xml = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

/** One test case per exchange (named after the request), a failure per violation. */
export function junitReport(records: ExchangeRecord[]): string {
  const failures = records.filter((r) => r.violations.length > 0).length;
  const cases = records.map((r) => {
    const name = xml(`${r.method} ${r.url} -> ${r.status} (${r.requestId})`);
    const body = r.violations
      .map(
        (v) =>
          `      <failure message="${xml(`${v.direction} ${v.pointer}: ${v.expected}`)}">${xml(violationBlock(v))}</failure>\n`,
      )
      .join('');
    return body
      ? `    <testcase classname="proxy" name="${name}">\n${body}    </testcase>\n`
      : `    <testcase classname="proxy" name="${name}"/>\n`;
  });
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites tests="${records.length}" failures="${failures}">\n` +
    `  <testsuite name="card-sandbox proxy" tests="${records.length}" failures="${failures}">\n` +
    cases.join('') +
    '  </testsuite>\n</testsuites>\n'
  );
}
