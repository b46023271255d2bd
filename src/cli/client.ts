import { randomUUID } from 'node:crypto';
import { isKeyedWrite } from '../contracts/files.js';

// The small HTTP client the developer commands (listen, trigger, logs tail, readiness) use to talk to a sandbox as a
// partner: JSON in, JSON out, X-API-KEY, and errors that say what the sandbox answered. It is as careful as readiness
// asks a partner's client to be: keyed writes carry an Idempotency-Key, kept for their retries; a 429 is waited out.

const TIMEOUT_MS = 30_000;
/** A request is sent at most this many times (a lost answer or a 5xx of a keyed write, a 429). */
const ATTEMPTS = 3;
/** The first pause before a keyed write is sent again; it doubles each time. */
const RETRY_DELAY_MS = 250;
/** The longest Retry-After waited: a tool that hangs longer looks dead. */
const MAX_RETRY_AFTER_S = 10;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The answer's status and parsed body (`{text}` when it is not JSON, `{}` when empty). */
async function answerOf(res: Response): Promise<Answer> {
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? {} : JSON.parse(text);
  } catch {
    parsed = { text: text.slice(0, 200) };
  }
  return { status: res.status, body: (parsed ?? {}) as Record<string, unknown> };
}

/** A failure the CLI reports in one line, with its exit status (3: unreachable or the key refused, 1: else). */
export class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export class SandboxClient {
  readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly apiKey: string,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  /**
   * Sends a request as we ask partners to: a keyed write (contracts/index.json `idempotent`) under an Idempotency-Key
   * of its own, sent again with the same key and body when its answer is lost or a 5xx; and after a 429, the
   * Retry-After waited before asking again. The last answer comes back (the caller judges the status); no answer at
   * all is a CliFailure (3).
   */
  async send(method: string, path: string, body?: unknown): Promise<Answer> {
    const keyed = isKeyedWrite(method, path);
    const headers: Record<string, string> = {
      'X-API-KEY': this.apiKey,
      ...(body !== undefined && { 'Content-Type': 'application/json' }),
      ...(keyed && { 'Idempotency-Key': randomUUID() }),
    };
    const payload = body === undefined ? undefined : JSON.stringify(body);
    for (let attempt = 1; ; attempt++) {
      const last = attempt === ATTEMPTS;
      let res: Response;
      try {
        res = await fetch(`${this.baseUrl}${path}`, {
          method,
          headers,
          body: payload,
          redirect: 'manual',
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch (err) {
        // The answer was lost: a keyed write may have happened, and only its own key makes asking again safe.
        if (keyed && !last) {
          await pause(RETRY_DELAY_MS * 2 ** attempt);
          continue;
        }
        const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
        throw new CliFailure(`${this.baseUrl} is unreachable (${method} ${path}: ${cause})`, 3);
      }
      if (!last && res.status === 429) {
        await res.body?.cancel();
        await pause(Math.min(Number(res.headers.get('retry-after')) || 1, MAX_RETRY_AFTER_S) * 1000);
        continue;
      }
      if (!last && keyed && res.status >= 500) {
        await res.body?.cancel();
        await pause(RETRY_DELAY_MS * 2 ** attempt);
        continue;
      }
      return answerOf(res);
    }
  }

  /** Like send, but anything but a 2xx is a CliFailure naming the call and the sandbox's {code, message}. */
  async ok(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const answer = await this.send(method, path, body);
    if (answer.status >= 200 && answer.status < 300) return answer.body;
    const { code, message } = answer.body;
    const detail = message === undefined ? JSON.stringify(answer.body) : `code ${String(code)}: ${String(message)}`;
    if (answer.status === 401 || answer.status === 403) {
      throw new CliFailure(`the API key was refused by ${this.baseUrl} (HTTP ${answer.status}, ${detail})`, 3);
    }
    throw new CliFailure(`${method} ${path} answered HTTP ${answer.status} (${detail})`, 1);
  }

  post(path: string, body: unknown = {}): Promise<Record<string, unknown>> {
    return this.ok('POST', path, body);
  }
}
