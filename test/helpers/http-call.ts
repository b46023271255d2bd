// A partner's call to a sandbox that listens (a served process, a server on a loopback port): over fetch, with the
// API key, a JSON body; answered in the shape of the in-process client (`sb.post`): status, headers, text and the
// parsed body.

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed; {} when there is none. */
  body: any;
}

/** `method path` on `baseUrl` with `apiKey` (none when undefined), `body` as JSON (none when undefined or a GET). */
export async function call(
  baseUrl: string,
  apiKey: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const sends = body !== undefined && method !== 'GET';
  const res = await fetch(baseUrl + path, {
    method,
    headers: {
      ...(apiKey !== undefined && { 'X-API-KEY': apiKey }),
      ...(sends && { 'Content-Type': 'application/json' }),
      ...headers,
    },
    body: sends ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text === '' ? {} : JSON.parse(text) };
}

/** A partner (or simulation) call: POST `body` as JSON with the key. */
export function post(
  baseUrl: string,
  apiKey: string | undefined,
  path: string,
  body: unknown = {},
  headers: Record<string, string> = {},
): Promise<Answer> {
  return call(baseUrl, apiKey, 'POST', path, body, headers);
}
