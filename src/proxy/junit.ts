import { appendFileSync, closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

// JUnit XML for the proxy and replay reports: one test case per exchange. A long run keeps its cases on disk as
// they come (a day of traffic must not grow the process's memory) and writes the file, counts in front, at the end.

export interface JunitCase {
  classname: string;
  name: string;
  failures: { message: string; text: string }[];
  /** Why the case was not run (replay: an exchange it could not replay faithfully). */
  skipped?: string;
  /** Notes that are neither failures nor skips (parts of an exchange that were not checked). */
  output?: string;
}

const xml = (s: string) =>
  // Characters XML 1.0 cannot hold at all are dropped; the five special ones are escaped.
  s
    .replace(/[^\t\n\r\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '')
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

function junitCase(c: JunitCase): string {
  const inner =
    c.failures.map((f) => `      <failure message="${xml(f.message)}">${xml(f.text)}</failure>\n`).join('') +
    (c.skipped !== undefined ? `      <skipped message="${xml(c.skipped)}"/>\n` : '') +
    (c.output ? `      <system-out>${xml(c.output)}</system-out>\n` : '');
  const open = `    <testcase classname="${xml(c.classname)}" name="${xml(c.name)}"`;
  return inner ? `${open}>\n${inner}    </testcase>\n` : `${open}/>\n`;
}

function head(suite: string, tests: number, failures: number, skipped: number): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites tests="${tests}" failures="${failures}"${skipped ? ` skipped="${skipped}"` : ''}>\n` +
    `  <testsuite name="${xml(suite)}" tests="${tests}" failures="${failures}"${skipped ? ` skipped="${skipped}"` : ''}>\n`
  );
}
const TAIL = '  </testsuite>\n</testsuites>\n';

/**
 * Cases go to a scratch file as they come; `finish` writes the report. The scratch folder sits beside the report, not
 * in the system's temp folder: a run stopped before `finish` leaves it where its owner looks, not where nobody does.
 */
export class JunitWriter {
  private readonly dir: string;
  private readonly cases: string;
  private tests = 0;
  private failures = 0;
  private skipped = 0;

  constructor(
    private readonly path: string,
    private readonly suite: string,
  ) {
    this.dir = mkdtempSync(join(dirname(resolve(path)), '.junit-cases-'));
    this.cases = join(this.dir, 'cases.xml');
    appendFileSync(this.cases, '');
  }

  add(c: JunitCase): void {
    this.tests++;
    if (c.failures.length > 0) this.failures++;
    if (c.skipped !== undefined) this.skipped++;
    appendFileSync(this.cases, junitCase(c));
  }

  finish(): void {
    const out = openSync(this.path, 'w');
    const input = openSync(this.cases, 'r');
    try {
      writeSync(out, head(this.suite, this.tests, this.failures, this.skipped));
      const buffer = Buffer.alloc(64 * 1024);
      for (let n = readSync(input, buffer); n > 0; n = readSync(input, buffer)) writeSync(out, buffer, 0, n);
      writeSync(out, TAIL);
    } finally {
      closeSync(input);
      closeSync(out);
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}
