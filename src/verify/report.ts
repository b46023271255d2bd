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

/** Text as XML character data or an attribute value. */
export const xml = (s: string) =>
  s
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!)
    // XML 1.0 has no representation for most control characters.
    // eslint-disable-next-line no-control-regex -- matching them is the point
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

export function junit(report: RunReport): string {
  const failures = report.results.filter((r) => r.status === 'fail').length;
  const skipped = report.results.filter((r) => r.status === 'skip').length;
  const cases = report.results.map((r) => {
    const open = `  <testcase classname="card-sandbox.verify" name="${xml(r.name)}" time="${(r.ms / 1000).toFixed(3)}"`;
    if (r.status === 'pass') return `${open}/>`;
    if (r.status === 'skip') return `${open}>\n    <skipped message="${xml(r.skipReason ?? '')}"/>\n  </testcase>`;
    const text = formatResult(r);
    return `${open}>\n    <failure message="${xml(r.violations[0]?.message ?? 'failed')}">${xml(text)}</failure>\n  </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="card-sandbox verify" tests="${report.results.length}" failures="${failures}" skipped="${skipped}">`,
    ...cases,
    '</testsuite>',
    '',
  ].join('\n');
}
