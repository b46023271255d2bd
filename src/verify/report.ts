import { junitSuite } from './junit-suite.js';
import type { CheckResult, RunReport } from './runner.js';

const MARK = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' } as const;

/** One line per check, then each violation with the request as curl and the schema and instance paths. */
export function formatResult(r: CheckResult): string {
  const head = `${MARK[r.status]}  ${r.name}${r.status === 'skip' ? `  (${r.skipReason})` : `  ${Math.round(r.ms)} ms`}`;
  const lines = [head];
  for (const v of r.violations) {
    lines.push(`      - ${v.message}`);
    if (v.schemaPath) lines.push(`        schema path: ${v.schemaPath}   instance path: ${v.instancePath || '/'}`);
    if (v.curl) lines.push(`        request: ${v.curl}`);
    if (v.raw !== undefined && !v.schemaPath) lines.push(`        answer (HTTP ${v.status}): ${v.raw || '(empty)'}`);
  }
  return lines.join('\n');
}

export function summary(report: RunReport): string {
  const count = (s: CheckResult['status']) => report.results.filter((r) => r.status === s).length;
  return (
    `${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped against ${report.target}` +
    `${report.isSandbox ? ' (card sandbox)' : ''}; spent ${report.spentMicros / 1_000_000} USDT`
  );
}

export function junit(report: RunReport): string {
  return junitSuite(
    'card-sandbox verify',
    report.results.map((r) => ({
      classname: 'card-sandbox.verify',
      name: r.name,
      seconds: r.ms / 1000,
      skipped: r.status === 'skip' ? (r.skipReason ?? '') : undefined,
      failure:
        r.status === 'fail' ? { message: r.violations[0]?.message ?? 'failed', text: formatResult(r) } : undefined,
    })),
  );
}
