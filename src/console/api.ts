import { randomUUID } from 'node:crypto';
import { isKeyedWrite } from '../contracts/files.js';
import type { components, paths } from '../contracts/api-types.js';

// The console's only way to act: the public API, called in-process through the app's own fetch with the
// session's key. Whatever a partner's call cannot do, the console cannot do either, and its errors are the API's.
// Paths, bodies and answers are typed from the contracts (src/contracts/api-types.d.ts, `npm run build:openapi`).

export type AppFetch = (path: string, init: RequestInit) => Response | Promise<Response>;

type HttpMethod = 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';
type Op<M extends HttpMethod, P extends keyof paths> = Extract<paths[P][Lowercase<M>], { responses: object }>;

/** The contract's paths that answer method M (a template such as `/admin/v1/accounts/{id}` among them). */
type PathOf<M extends HttpMethod> = {
  [P in keyof paths]: [Op<M, P>] extends [never] ? never : P;
}[keyof paths];
/** The POST paths without a path parameter: the partner and simulation API. */
export type PostPath = Exclude<PathOf<'POST'>, `${string}{${string}`>;

/** A named schema of the contracts. */
export type Schema<N extends keyof components['schemas']> = components['schemas'][N];
/** Every failure: the API's `{code, message}` (a body that is not one gets the HTTP status as its code). */
type ErrorBody = Schema<'common.error'>;

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Responses<M extends HttpMethod, P extends PathOf<M>> = Op<M, P>['responses'];
/** The body of the success answer (200 or 201) of `M P`. */
export type Success<M extends HttpMethod, P extends PathOf<M>> = {
  [S in keyof Responses<M, P>]: S extends 200 | 201 ? Json<Responses<M, P>[S]> : never;
}[keyof Responses<M, P>];
type RequestOf<M extends HttpMethod, P extends PathOf<M>> =
  Op<M, P> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type ParamsOf<M extends HttpMethod, P extends PathOf<M>> = Op<M, P>['parameters'] extends {
  path: infer A extends Record<string, string>;
}
  ? A
  : never;

/**
 * A request body built from a form: the contract's field names, each one optional and free to be the text the user
 * typed, because the API (not the console) judges values and names what is wrong with them.
 */
type FormBody<B> = { [K in keyof B]?: B[K] | string };

/** The body of a POST to P as a form builds it. */
export type PostBody<P extends PostPath> = FormBody<RequestOf<'POST', P>>;

/** An answer, told apart by `ok`: the success schema of the call, or the API's error. */
export type Answer<B> = { ok: true; status: number; body: B } | Failure;
export interface Failure {
  ok: false;
  status: number;
  body: ErrorBody;
}

/** Options of a call: the path's parameters when it has any (each URL-encoded into the path), and a body. */
type CallOptions<M extends HttpMethod, P extends PathOf<M>> = [ParamsOf<M, P>] extends [never]
  ? [opts?: { body?: FormBody<RequestOf<M, P>> }]
  : [opts: { params: ParamsOf<M, P>; body?: FormBody<RequestOf<M, P>> }];

/** What a keyed write's form gives its call: the Idempotency-Key it was rendered with (see `OperationKey`). */
interface WriteOptions {
  idempotencyKey?: string;
}

export interface Api {
  post<P extends PostPath>(
    path: P,
    body?: FormBody<RequestOf<'POST', P>>,
    opts?: WriteOptions,
  ): Promise<Answer<Success<'POST', P>>>;
  /** POST of JSON text the user typed, sent as it is: the API's bounds (size, nesting) judge it, not this process. */
  postText<P extends PostPath>(path: P, jsonText: string): Promise<Answer<Success<'POST', P>>>;
  send<M extends HttpMethod, P extends PathOf<M>>(
    method: M,
    path: P,
    ...opts: CallOptions<M, P>
  ): Promise<Answer<Success<M, P>>>;
}

/** `/admin/v1/accounts/{id}` with `{id}` filled in, URL-encoded. */
function fillPath(template: string, params: Record<string, string> | undefined): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params?.[name] ?? ''));
}

/**
 * A client for one credential: `X-API-KEY` for /v1 and /sandbox/v1, the bearer token for /admin/v1. Every keyed write
 * (contracts/index.json `idempotent`) carries an Idempotency-Key, as readiness asks of a partner: the one its form
 * was rendered with, else one of its own.
 */
export function apiClient(fetch: AppFetch, credential: { apiKey?: string; adminToken?: string }): Api {
  const sendText = async <B>(
    method: HttpMethod,
    path: string,
    text: string | undefined,
    opts: WriteOptions = {},
  ): Promise<Answer<B>> => {
    const headers: Record<string, string> = { 'X-Console': '1' };
    if (credential.apiKey) headers['X-API-KEY'] = credential.apiKey;
    if (credential.adminToken) headers.Authorization = `Bearer ${credential.adminToken}`;
    if (isKeyedWrite(method, path)) headers['Idempotency-Key'] = opts.idempotencyKey || randomUUID();
    if (text !== undefined) {
      headers['Content-Type'] = 'application/json';
      // Declared, as an HTTP client would: the body-size check then reads the header instead of the stream.
      headers['Content-Length'] = String(Buffer.byteLength(text));
    }
    const res = await fetch(path, { method, headers, body: text });
    return answerOf<B>(res.status, res.ok, await res.text());
  };
  const send = <B>(method: HttpMethod, path: string, opts: { params?: Record<string, string>; body?: unknown } = {}) =>
    sendText<B>(method, fillPath(path, opts.params), opts.body === undefined ? undefined : JSON.stringify(opts.body));
  return {
    post: (path, body = {}, opts) => sendText('POST', path, JSON.stringify(body), opts),
    postText: (path, jsonText) => sendText('POST', path, jsonText),
    send,
  };
}

/**
 * The one place an answer's text becomes a typed value: a success is taken to be what its contract says (the
 * contract tests hold the API to it); a failure is the API's `{code, message}`, or, when its body is not one
 * (empty, not JSON), the HTTP status and the start of the text.
 */
function answerOf<B>(status: number, httpOk: boolean, text: string): Answer<B> {
  let parsed: unknown;
  try {
    parsed = text === '' ? {} : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const fields = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  if (httpOk && parsed !== undefined && (fields.code === undefined || fields.code === 0)) {
    return { ok: true, status, body: parsed as B };
  }
  const code = typeof fields.code === 'number' ? fields.code : status;
  const message = typeof fields.message === 'string' ? fields.message : text.slice(0, 200);
  return { ok: false, status, body: { code, message } };
}
