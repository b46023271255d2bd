import type { Mismatch } from './match.js';
import type { FileResult, StepResult } from './results.js';
import type { ScenarioFileError } from './types.js';

const indent = (text: string, pad: string) =>
  text
    .split('\n')
    .map((l) => pad + l)
    .join('\n');

/** One line per step. */
function stepLine(step: StepResult): string {
  const mark = step.skipped ? '-' : step.ok ? '✓' : '✗';
  return `  ${mark} ${step.label}${step.skipped ? ' (skipped)' : ` (${step.ms} ms)`}`;
}

function diffText(diff: Mismatch[]): string {
  return diff.map((d) => `at ${d.path}\n  - expected: ${d.expected}\n  + actual:   ${d.actual}`).join('\n');
}

/** A failure: where it was written, what went wrong, the request as curl, the diff, and the actual body. */
function failureText(step: StepResult): string {
  const f = step.failure!;
  const parts = [`${step.file}:${step.line} ${step.label}`, indent(f.message, '  ')];
  if (f.curl) parts.push('  request:', indent(f.curl, '    '));
  if (f.diff && f.diff.length > 0) parts.push('  diff:', indent(diffText(f.diff), '    '));
  if (f.actual !== undefined) {
    const body = JSON.stringify(f.actual, null, 2);
    parts.push('  actual:', indent(body.length > 2000 ? `${body.slice(0, 2000)}\n…` : body, '    '));
  }
  return parts.join('\n');
}

/** A file's block: PASS or FAIL, then a line per step. */
export function fileBlock(r: FileResult): string {
  return [`${r.ok ? 'PASS' : 'FAIL'} ${r.file} — ${r.name} (${r.ms} ms)`, ...r.steps.map(stepLine)].join('\n') + '\n';
}

/** The human report: a block per file (unless already streamed), the failures in full, and a summary line. */
export function consoleReport(results: FileResult[], totalMs: number, { blocks = true } = {}): string {
  const out: string[] = [];
  if (blocks) for (const r of results) out.push(fileBlock(r).trimEnd());
  const failures = results.flatMap((r) => r.steps.filter((s) => !s.ok));
  if (failures.length > 0) out.push('', 'Failures:', '', ...failures.map((s) => `${failureText(s)}\n`));
  const failed = results.filter((r) => !r.ok).length;
  if (results.some((r) => r.contractsSkipped))
    out.push('note: no contract registry available, responses were not validated against contracts');
  out.push(`${results.length - failed} passed, ${failed} failed, ${results.length} files in ${totalMs} ms`);
  return `${out.join('\n')}\n`;
}

export function fileErrorsReport(errors: ScenarioFileError[]): string {
  const problems = errors.reduce((n, e) => n + e.problems.length, 0);
  return (
    errors.map((e) => e.message).join('\n') +
    `\n${problems} problem(s) in ${errors.length} malformed scenario file(s); nothing ran\n`
  );
}

const xml = (s: string) =>
  s
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!)
    // Control characters are not allowed in XML 1.0.
    // eslint-disable-next-line no-control-regex -- matching them is the point
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** JUnit XML: a testsuite per file, a testcase per step. */
export function junitReport(results: FileResult[]): string {
  const suites = results.map((r) => {
    const failures = r.steps.filter((s) => !s.ok).length;
    const skipped = r.steps.filter((s) => s.skipped).length;
    const cases = r.steps.map((s) => {
      const open = `    <testcase classname="${xml(r.file)}" name="${xml(`${s.label} (line ${s.line})`)}" time="${(s.ms / 1000).toFixed(3)}"`;
      if (s.skipped) return `${open}><skipped/></testcase>`;
      if (s.ok) return `${open}/>`;
      return `${open}>\n      <failure message="${xml(s.failure!.message)}">${xml(failureText(s))}</failure>\n    </testcase>`;
    });
    return `  <testsuite name="${xml(`${r.file}: ${r.name}`)}" tests="${r.steps.length}" failures="${failures}" skipped="${skipped}" time="${(r.ms / 1000).toFixed(3)}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n${suites.join('\n')}\n</testsuites>\n`;
}

/** TAP version 13: a test point per file, its failed step in a YAML diagnostic block. */
export function tapReport(results: FileResult[]): string {
  const out = ['TAP version 13', `1..${results.length}`];
  results.forEach((r, i) => {
    out.push(`${r.ok ? 'ok' : 'not ok'} ${i + 1} - ${r.file}: ${r.name}`);
    const failed = r.steps.find((s) => !s.ok);
    if (failed) {
      out.push(
        '  ---',
        `  message: ${JSON.stringify(failed.failure!.message)}`,
        `  at: ${JSON.stringify(`${failed.file}:${failed.line}`)}`,
      );
      out.push(`  step: ${JSON.stringify(failed.label)}`);
      if (failed.failure!.curl) out.push('  curl: |', indent(failed.failure!.curl, '    '));
      if (failed.failure!.diff?.length) out.push('  diff: |', indent(diffText(failed.failure!.diff), '    '));
      out.push('  ...');
    }
  });
  return `${out.join('\n')}\n`;
}
