import type { components } from '../contracts/api-types.js';
import { junitSuite } from '../verify/junit-suite.js';

// How `card-sandbox readiness` prints a run: one line per check, and under a failure its evidence and advice; and the
// JUnit file, one test case per check (a failure is a failure, not_observed is skipped: nothing to judge is no pass).

type RunView = components['schemas']['sandbox.readiness.run'];
type CheckResult = components['schemas']['sandbox.readiness.check']['result'];
type DeliveryView = components['schemas']['sandbox.readiness.delivery'];

const LABEL: Record<CheckResult, string> = { pass: 'PASS', fail: 'FAIL', not_observed: 'NOT OBSERVED' };
const INDENT = ' '.repeat(14);

/** A delivery id with what its attempts got, so the evidence reads without the API: `rdl_... (HTTP 200, 3 ms)`. */
function evidenceText(id: string, deliveries: readonly DeliveryView[]): string {
  const d = deliveries.find((x) => x.deliveryId === id);
  if (!d) return id;
  const tries = d.attempts.map((a) => `${a.status === null ? a.error : `HTTP ${a.status}`}, ${a.latencyMs} ms`);
  return `${id} (${tries.join('; ') || 'no answer'})`;
}

type CheckView = RunView['checks'][number];

/** The evidence ids, with what each delivery got, and how many more the check rests on beyond those listed. */
function evidenceLine(c: CheckView, deliveries: readonly DeliveryView[]): string {
  const listed = c.evidence.map((e) => evidenceText(e, deliveries)).join(', ');
  return c.evidenceOmitted > 0 ? `${listed}, and ${c.evidenceOmitted} more` : listed;
}

/**
 * One line per check; a failure with its evidence and advice, a check not observed with its reason; and, whatever the
 * result, which request the check paired with which.
 */
export function formatReport(run: RunView): string {
  const lines = run.checks.map((c) => {
    const head = `${LABEL[c.result].padEnd(INDENT.length)}${c.title}`;
    const paired = c.paired ? [`${INDENT}paired: ${c.paired}`] : [];
    if (c.result === 'pass') return [head, ...paired].join('\n');
    if (c.result === 'not_observed') {
      const evidence = c.evidence.length > 0 ? [`${INDENT}evidence: ${evidenceLine(c, run.deliveries)}`] : [];
      return [head, `${INDENT}why: ${c.advice ?? ''}`, ...paired, ...evidence].join('\n');
    }
    return [
      head,
      ...paired,
      `${INDENT}evidence: ${evidenceLine(c, run.deliveries)}`,
      `${INDENT}advice: ${c.advice ?? ''}`,
    ].join('\n');
  });
  return `${lines.join('\n')}\n\n${summary(run)}\n`;
}

function summary(run: RunView): string {
  const count = (r: CheckResult) => run.checks.filter((c) => c.result === r).length;
  return (
    `${count('pass')} passed, ${count('fail')} failed, ${count('not_observed')} not observed ` +
    `(readiness run ${run.runId}; request ids open with sandbox/v1/requests/get or in the console)`
  );
}

export function junitReport(run: RunView): string {
  return junitSuite(
    `card-sandbox readiness ${run.runId}`,
    run.checks.map((c) => ({
      classname: 'card-sandbox.readiness',
      name: `${c.id}: ${c.title}`,
      skipped: c.result === 'not_observed' ? (c.advice ?? '') : undefined,
      failure:
        c.result === 'fail'
          ? {
              message: c.advice ?? 'failed',
              text: `${c.paired ? `paired: ${c.paired}\n` : ''}evidence: ${evidenceLine(c, run.deliveries)}\nadvice: ${c.advice}`,
            }
          : undefined,
    })),
  );
}
