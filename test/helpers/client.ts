// The tests' HTTP client without a socket: each request goes to the app's fetch (Hono's `app.request()` way), and
// the answer has the shape supertest gives (status, lower-case headers, body parsed when JSON, text), so a test reads
// the same either way. A test that needs a real connection (a dropped response, a connection timeout) uses
// `sb.socket` instead.

export type Fetch = (request: Request) => Response | Promise<Response>;

export interface TestResponse {
  status: number;
  /** Lower-case names; `set-cookie` is a list, as in supertest. */
  headers: Record<string, string> & { 'set-cookie'?: string[] };
  /** The parsed JSON of a JSON answer, else `{}` (as supertest). */
  body: any;
  text: string;
}

const JSON_TYPE = /[/+]json($|[^-\w])/i;

/** One request, built like supertest's (`.set(...)`, `.send(...)`) and sent when awaited. */
export class TestRequest implements PromiseLike<TestResponse> {
  private readonly headers = new Headers();
  private body: string | Uint8Array | undefined;
  private sent: Promise<TestResponse> | undefined;
  private expectedStatus: number | undefined;

  constructor(
    private readonly fetch: Fetch,
    private readonly method: string,
    private readonly path: string,
  ) {}

  set(name: string, value: string): this {
    this.headers.set(name, value);
    return this;
  }

  /**
   * As supertest: a string is sent as it is (form-encoded type unless one is set), bytes as they are (no type),
   * an object as JSON.
   */
  send(body: string | Uint8Array | object): this {
    const bytes = body instanceof Uint8Array;
    const json = typeof body !== 'string' && !bytes;
    this.body = json ? JSON.stringify(body) : (body as string | Uint8Array);
    if (!bytes && !this.headers.has('content-type')) {
      this.headers.set('content-type', json ? 'application/json' : 'application/x-www-form-urlencoded');
    }
    return this;
  }

  /** Fails the request (when awaited) unless it answers `status`, as supertest's `.expect(status)`. */
  expect(status: number): this {
    this.expectedStatus = status;
    return this;
  }

  then<A = TestResponse, B = never>(
    onFulfilled?: ((res: TestResponse) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    this.sent ??= this.run();
    return this.sent.then(onFulfilled, onRejected);
  }

  private async run(): Promise<TestResponse> {
    // As on the wire: a body declares its length (the body limit reads the header before the stream).
    if (this.body !== undefined)
      this.headers.set(
        'content-length',
        String(typeof this.body === 'string' ? Buffer.byteLength(this.body) : this.body.byteLength),
      );
    const res = await this.fetch(
      new Request(`http://localhost${this.path}`, { method: this.method, headers: this.headers, body: this.body }),
    );
    const text = await res.text();
    const headers: TestResponse['headers'] = Object.fromEntries(res.headers);
    const cookies = res.headers.getSetCookie();
    if (cookies.length) headers['set-cookie'] = cookies;
    const type = res.headers.get('content-type') ?? '';
    const body = JSON_TYPE.test(type) && text ? JSON.parse(text) : {};
    if (this.expectedStatus !== undefined && res.status !== this.expectedStatus) {
      throw new Error(`expected ${this.expectedStatus}, got ${res.status}: ${text}`);
    }
    return { status: res.status, headers, body, text };
  }
}

/** `agent.get(path)`, `agent.post(path)`, ... as with `supertest(server)`, over the app's fetch. */
export function fetchAgent(fetch: Fetch) {
  const open = (method: string) => (path: string) => new TestRequest(fetch, method, path);
  return {
    get: open('GET'),
    post: open('POST'),
    put: open('PUT'),
    patch: open('PATCH'),
    delete: open('DELETE'),
  };
}

export type FetchAgent = ReturnType<typeof fetchAgent>;
