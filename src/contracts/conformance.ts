import {
  hasContract,
  validateEvent,
  validateRequest,
  validateResponse,
  validateSchema,
  type ContractViolation,
} from './registry.js';

// Self-conformance: every answer the sandbox gives in a test is held to its contract, strictly, so the sandbox
// cannot drift from the contracts it publishes.

export interface Finding {
  /** `POST /v1/card/create -> 200`, or `event card.created evt_...`. */
  subject: string;
  violations: ContractViolation[];
  body: unknown;
}

// Hono's fetch takes its env and execution context after the request; `unknown` would refuse that signature.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Fetch = (request: Request, ...rest: any[]) => Response | Promise<Response>;

/** The surfaces with contracts; anything else (the API reference pages) is not judged. */
const CONTRACT_SURFACES = /^\/(v1|sandbox\/v1|admin\/v1)(\/|$)|^\/healthz$/;

export class ConformanceCheck {
  private findings: Finding[] = [];

  constructor(private readonly opts: { strict: boolean } = { strict: true }) {}

  /** A fetch handler that validates every response it returns (it reads a clone; the caller's body is intact). */
  wrapFetch(fetch: Fetch): Fetch {
    return async (request, ...rest) => {
      const method = request.method;
      const path = new URL(request.url).pathname;
      const judged = CONTRACT_SURFACES.test(path);
      const requestText = judged && request.body ? await request.clone().text() : '';
      const response = await fetch(request, ...rest);
      if (judged) {
        await this.response(method, path, response.clone());
        if (response.ok) this.acceptedRequest(method, path, requestText);
      }
      return response;
    };
  }

  /** Records a webhook event that the sandbox emitted. */
  event(envelope: unknown): void {
    const violations = validateEvent(envelope, this.opts);
    const e = (envelope ?? {}) as { id?: unknown; type?: unknown };
    if (violations.length)
      this.findings.push({ subject: `event ${String(e.type)} ${String(e.id)}`, violations, body: envelope });
  }

  /** Findings since the last call, and forgets them. */
  take(): Finding[] {
    const out = this.findings;
    this.findings = [];
    return out;
  }

  /**
   * A request the sandbox accepted must be one its contract allows: a sandbox more lenient than its contracts lets
   * a partner pass here and fail in production. Lenient about extra fields (the sandbox ignores them).
   */
  private acceptedRequest(method: string, path: string, text: string): void {
    if (!hasContract(method, path)) return;
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = text;
    }
    const violations = validateRequest(method, path, body);
    if (violations.length)
      this.findings.push({ subject: `${method} ${path} accepted a request its contract refuses`, violations, body });
  }

  /** An unknown route still answers the one error body (or the bare 403 of a missing key); a success needs a contract. */
  private uncontracted(method: string, path: string, status: number, body: unknown): ContractViolation[] {
    if (status === 403 && body === undefined) return [];
    if (status >= 400) return validateSchema('common/error.json', body, this.opts);
    return [{ schemaId: '', schemaPath: '', instancePath: '', message: `no contract for ${method} ${path}` }];
  }

  private async response(method: string, path: string, response: Response): Promise<void> {
    const text = await response.text();
    let body: unknown = undefined;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        this.findings.push({
          subject: `${method} ${path} -> ${response.status}`,
          violations: [{ schemaId: '', schemaPath: '', instancePath: '', message: 'body is not JSON' }],
          body: text.slice(0, 200),
        });
        return;
      }
    }
    const violations = hasContract(method, path)
      ? validateResponse(method, path, response.status, body, this.opts)
      : this.uncontracted(method, path, response.status, body);
    if (violations.length) this.findings.push({ subject: `${method} ${path} -> ${response.status}`, violations, body });
  }
}

/** One readable report of findings, for a failing test. */
export function formatFindings(findings: Finding[]): string {
  return findings
    .map((f) => {
      const lines = f.violations.map(
        (v) => `  ${v.instancePath || '/'} ${v.message} [${v.schemaId}${v.schemaPath ? ' ' + v.schemaPath : ''}]`,
      );
      return `${f.subject}\n${lines.join('\n')}\n  body: ${JSON.stringify(f.body)?.slice(0, 500)}`;
    })
    .join('\n');
}
