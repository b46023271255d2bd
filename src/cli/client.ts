// The small HTTP client the developer commands (listen, trigger, logs tail) use to talk to a sandbox as a partner:
// JSON in, JSON out, X-API-KEY, and errors that say what the sandbox answered.

const TIMEOUT_MS = 30_000;

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

  /** Sends one request; any answer comes back (the caller judges the status), no answer is a CliFailure (3). */
  async send(method: string, path: string, body?: unknown): Promise<Answer> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { 'X-API-KEY': this.apiKey, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new CliFailure(`${this.baseUrl} is unreachable (${method} ${path}: ${cause})`, 3);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? {} : JSON.parse(text);
    } catch {
      parsed = { text: text.slice(0, 200) };
    }
    return { status: res.status, body: (parsed ?? {}) as Record<string, unknown> };
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
