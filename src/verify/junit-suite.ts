// One JUnit `<testsuite>` document, the shape `verify --junit` and `readiness --junit` write: a test case passes,
// is skipped (with why) or fails (with a message and the detail).

export interface SuiteCase {
  classname: string;
  name: string;
  /** Its duration, when the report measures one. */
  seconds?: number;
  skipped?: string;
  failure?: { message: string; text: string };
}

/** Text as XML character data or an attribute value. */
const xml = (s: string) =>
  s
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!)
    // XML 1.0 has no representation for most control characters.
    // eslint-disable-next-line no-control-regex -- matching them is the point
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

export function junitSuite(name: string, cases: readonly SuiteCase[]): string {
  const failures = cases.filter((c) => c.failure).length;
  const skipped = cases.filter((c) => !c.failure && c.skipped !== undefined).length;
  const lines = cases.map((c) => {
    const time = c.seconds === undefined ? '' : ` time="${c.seconds.toFixed(3)}"`;
    const open = `  <testcase classname="${xml(c.classname)}" name="${xml(c.name)}"${time}`;
    if (c.failure) {
      return `${open}>\n    <failure message="${xml(c.failure.message)}">${xml(c.failure.text)}</failure>\n  </testcase>`;
    }
    if (c.skipped !== undefined) return `${open}>\n    <skipped message="${xml(c.skipped)}"/>\n  </testcase>`;
    return `${open}/>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="${xml(name)}" tests="${cases.length}" failures="${failures}" skipped="${skipped}">`,
    ...lines,
    '</testsuite>',
    '',
  ].join('\n');
}
