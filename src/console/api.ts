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
  /** POST of JSON text the user typed, sent as it is: the API's bounds (size, nesting) judge it, not this process. */
  postText(path: string, jsonText: string): Promise<Answer>;
  send(method: 'GET' | 'PUT' | 'PATCH' | 'DELETE' | 'POST', path: string, body?: unknown): Promise<Answer>;
}

/** A client for one credential: `X-API-KEY` for /v1 and /sandbox/v1, the bearer token for /admin/v1. */
export function apiClient(fetch: AppFetch, credential: { apiKey?: string; adminToken?: string }): Api {
  const sendText = async (method: string, path: string, text: string | undefined) => {
    const headers: Record<string, string> = { 'X-Console': '1' };
    if (credential.apiKey) headers['X-API-KEY'] = credential.apiKey;
    if (credential.adminToken) headers.Authorization = `Bearer ${credential.adminToken}`;
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
  const send: Api['send'] = (method, path, body) =>
    sendText(method, path, body === undefined ? undefined : JSON.stringify(body));
  return {
    send,
    post: (path, body = {}) => send('POST', path, body),
    postText: (path, jsonText) => sendText('POST', path, jsonText),
  };
}
