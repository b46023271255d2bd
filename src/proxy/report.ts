import type { Redactor } from '../redaction/redactor.js';
import { at, type Violation } from './check.js';
import type { JunitCase } from './junit.js';

// How the proxy tells what it saw: a readable block per violation, a JSON line per exchange, a JUnit file. Every
// text here has been redacted before it is built (redactViolation, exchangeRecord): these files end up in CI
// artifacts.

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

export function notCheckedLine(operation: string, notes: string[]): string {
  return `NOT CHECKED ${operation}: ${notes.join('; ')}`;
}

/**
 * A violation as it may be shown: every text redacted, and what was seen at a body pointer read again from the
 * redacted body (a CVV is found by its name in the body, never by its value alone).
 */
export function redactViolation(
  v: Violation,
  redactor: Redactor,
  bodies: { request: unknown; response: unknown },
): Violation {
  const body = redactor.value(v.direction === 'request' ? bodies.request : bodies.response);
  const seen = v.pointer.startsWith('/') ? at(body, v.pointer === '/' ? '' : v.pointer) : v.seen;
  return {
    operation: redactor.url(v.operation),
    direction: v.direction,
    pointer: redactor.text(v.pointer),
    expected: redactor.text(v.expected),
    seen: redactor.text(seen),
    requestId: redactor.text(v.requestId),
  };
}

export interface ExchangeRecord {
  time: string;
  requestId: string;
  method: string;
  url: string;
  status: number;
  violations: Violation[];
  /** Parts of the exchange the proxy relayed without judging (a body over 1 MiB). */
  notChecked?: string[];
}

/** The exchange as a JUnit test case: named after the request, a failure per violation. */
export function exchangeCase(r: ExchangeRecord): JunitCase {
  return {
    classname: 'proxy',
    name: `${r.method} ${r.url} -> ${r.status} (${r.requestId})`,
    failures: r.violations.map((v) => ({
      message: `${v.direction} ${v.pointer}: ${v.expected}`,
      text: violationBlock(v),
    })),
    output: r.notChecked?.length ? `not checked: ${r.notChecked.join('; ')}` : undefined,
  };
}
