import { appendFileSync, writeFileSync } from 'node:fs';
import { contractFor } from '../contracts/registry.js';
import { parseBody, type Exchange, type Violation } from './check.js';
import { JunitWriter } from './junit.js';
import { recordedExchange } from './record.js';
import { exchangeCase, notCheckedLine, redactViolation, violationBlock, type ExchangeRecord } from './report.js';
import { SecretWatch } from './secrets.js';

// Everything the proxy writes about what it saw: stdout, --report, --junit, --record. Each exchange first teaches
// the secret watch what it carried (the key it relayed, a secret in its answer), then every output of it, and of all
// exchanges after, is redacted with what is known: nothing here ever writes a text that did not pass the redactor.

export interface OutputOptions {
  out: (text: string) => void;
  reportFile?: string;
  junitFile?: string;
  recordFile?: string;
  /** Values to mask from the start (none are needed: the proxy learns keys as they go by). */
  known?: string[];
}

export class ProxyOutputs {
  readonly watch: SecretWatch;
  exchanges = 0;
  failedExchanges = 0;
  violations = 0;
  private readonly junit?: JunitWriter;

  constructor(private readonly opts: OutputOptions) {
    this.watch = new SecretWatch(opts.known);
    if (opts.reportFile) writeFileSync(opts.reportFile, '');
    if (opts.recordFile) writeFileSync(opts.recordFile, '');
    if (opts.junitFile) this.junit = new JunitWriter(opts.junitFile, 'card-sandbox proxy');
  }

  observe(x: Exchange, found: Violation[]): void {
    const bodies = {
      request: 'text' in x.requestBody ? parseBody(x.requestBody.text, x.requestHeaders['content-type']) : undefined,
      response:
        'text' in x.responseBody ? parseBody(x.responseBody.text, x.responseHeaders['content-type']) : undefined,
    };
    this.watch.learnHeaders(x.requestRawHeaders);
    this.watch.learnHeaders(x.responseRawHeaders);
    this.watch.learnBody(bodies.request);
    this.watch.learnBody(bodies.response);
    const redactor = this.watch.redactor;

    this.exchanges++;
    this.violations += found.length;
    if (found.length > 0) this.failedExchanges++;
    const shown = found.map((v) => redactViolation(v, redactor, bodies));
    const notChecked = notCheckedNotes(x);
    const path = x.url.split('?')[0]!;
    for (const v of shown) this.opts.out(violationBlock(v) + '\n');
    if (notChecked.length > 0) {
      const operation = contractFor(x.method, path)?.key ?? `${x.method} ${redactor.url(path)}`;
      this.opts.out(notCheckedLine(operation, notChecked) + '\n');
    }

    const record: ExchangeRecord = {
      time: x.time.toISOString(),
      requestId: redactor.text(x.responseHeaders['x-request-id'] ?? x.requestHeaders['x-request-id'] ?? '(none)'),
      method: x.method,
      url: redactor.url(x.url),
      status: x.status,
      violations: shown,
      ...(notChecked.length > 0 && { notChecked }),
    };
    if (this.opts.reportFile) appendFileSync(this.opts.reportFile, JSON.stringify(record) + '\n');
    this.junit?.add(exchangeCase(record));
    if (this.opts.recordFile) {
      appendFileSync(this.opts.recordFile, JSON.stringify(recordedExchange(this.exchanges, x, redactor)) + '\n');
    }
  }

  /** Writes the JUnit file (the others are written as exchanges complete). */
  finish(): void {
    this.junit?.finish();
  }

  summary(): string {
    return `proxy: ${this.exchanges} exchanges, ${this.failedExchanges} with violations, ${this.violations} violations in all`;
  }
}

/** Bodies relayed without being judged: said apart from violations, since the contract was not broken. */
function notCheckedNotes(x: Exchange): string[] {
  if (x.failure) return [];
  const notes: string[] = [];
  if ('notChecked' in x.requestBody) notes.push(`request ${x.requestBody.notChecked}`);
  if ('notChecked' in x.responseBody) notes.push(`response ${x.responseBody.notChecked}`);
  return notes;
}
