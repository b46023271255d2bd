/** One HTTP exchange of a scenario, kept whole so a failure can show it as curl and diff it. */
export interface Exchange {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: unknown;
  ms: number;
}

const SECRET_HEADERS: Record<string, string> = {
  'x-api-key': '$SANDBOX_API_KEY',
  authorization: 'Bearer $SANDBOX_ADMIN_TOKEN',
};

/** Sends one JSON request with fetch; a network failure is thrown with the URL. */
export async function send(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<Exchange> {
  const started = performance.now();
  const hasBody = body !== undefined && method !== 'GET';
  const sent = hasBody ? { 'Content-Type': 'application/json', ...headers } : headers;
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { method, headers: sent, body: hasBody ? JSON.stringify(body) : undefined });
    text = await res.text();
  } catch (err) {
    // No HTTP answer at all (reset, refused): status 0, so a file can expect a lost response with `status: 0`.
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const error = cause?.code ?? cause?.message ?? (err as Error).message;
    return {
      method,
      url,
      headers: sent,
      body: hasBody ? body : undefined,
      status: 0,
      responseHeaders: {},
      responseBody: { networkError: error },
      ms: Math.round(performance.now() - started),
    };
  }
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON: the raw text is what the diff shows.
  }
  const responseHeaders: Record<string, string> = {};
  res.headers.forEach((v, k) => (responseHeaders[k] = v));
  return {
    method,
    url,
    headers: sent,
    body: hasBody ? body : undefined,
    status: res.status,
    responseHeaders,
    responseBody: parsed,
    ms: Math.round(performance.now() - started),
  };
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The request as a curl command; credentials appear as environment variables, never in clear. */
export function asCurl(x: Pick<Exchange, 'method' | 'url' | 'headers' | 'body'>): string {
  const parts = [`curl -sS -X ${x.method} ${quote(x.url)}`];
  for (const [k, v] of Object.entries(x.headers)) {
    const secret = SECRET_HEADERS[k.toLowerCase()];
    parts.push(secret ? `-H "${k}: ${secret}"` : `-H ${quote(`${k}: ${v}`)}`);
  }
  if (x.body !== undefined) parts.push(`--data ${quote(JSON.stringify(x.body))}`);
  return parts.join(' \\\n    ');
}
