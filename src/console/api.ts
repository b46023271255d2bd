// The console's only way to act: the public API, called in-process through the app's own fetch with the
// session's key. Whatever a partner's call cannot do, the console cannot do either, and its errors are the API's.

export type AppFetch = (path: string, init: RequestInit) => Response | Promise<Response>;

export interface Answer {
  ok: boolean;
  status: number;
  // The API's JSON answer; pages read the fields their contract documents.
  body: any;
}

export interface Api {
  post(path: string, body?: Record<string, unknown>): Promise<Answer>;
  send(method: 'GET' | 'PUT' | 'PATCH' | 'DELETE' | 'POST', path: string, body?: unknown): Promise<Answer>;
}

/** A client for one credential: `X-API-KEY` for /v1 and /sandbox/v1, the bearer token for /admin/v1. */
export function apiClient(fetch: AppFetch, credential: { apiKey?: string; adminToken?: string }): Api {
  const send: Api['send'] = async (method, path, body) => {
    const headers: Record<string, string> = { 'X-Console': '1' };
    if (credential.apiKey) headers['X-API-KEY'] = credential.apiKey;
    if (credential.adminToken) headers.Authorization = `Bearer ${credential.adminToken}`;
    const text = body === undefined ? undefined : JSON.stringify(body);
    if (text !== undefined) {
      headers['Content-Type'] = 'application/json';
      // Declared, as an HTTP client would: the body-size check then reads the header instead of the stream.
      headers['Content-Length'] = String(Buffer.byteLength(text));
    }
    const res = await fetch(path, { method, headers, body: text });
    const answer = await res.text();
    let parsed: unknown = {};
    try {
      parsed = answer === '' ? {} : JSON.parse(answer);
    } catch {
      parsed = { code: res.status, message: answer.slice(0, 200) };
    }
    const code = (parsed as { code?: unknown }).code;
    return { ok: res.ok && (code === undefined || code === 0), status: res.status, body: parsed };
  };
  return { send, post: (path, body = {}) => send('POST', path, body) };
}
