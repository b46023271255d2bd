import type { Server } from 'node:http';
import request from 'supertest';
import { expect } from 'vitest';

// Signing in to the console over plain HTTP, no browser: the form post, the session cookie it sets, and the CSRF
// token a page's forms carry.

/** A partner signs in with an API key, the operator with the admin token. */
export type Credential = { apiKey: string } | { adminToken: string };

export interface SignedIn {
  res: request.Response;
  /** The Set-Cookie header of the session, if one was granted. */
  setCookie?: string;
  /** The session cookie as a request sends it back (`name=value`). */
  cookie?: string;
}

/** Posts the sign-in form of a credential; its answer and the session cookie it set, if any. */
export async function signIn(
  server: Server,
  credential: Credential,
  headers: Record<string, string> = {},
): Promise<SignedIn> {
  const path = 'adminToken' in credential ? '/console/operator/signin' : '/console/signin';
  const res = await request(server).post(path).set(headers).type('form').send(credential);
  const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? [])[0];
  return { res, setCookie, cookie: setCookie?.split(';')[0] };
}

/** The CSRF token of a console page's forms, read with a session's cookie. */
export async function csrfOf(server: Server, cookie: string, path = '/console'): Promise<string> {
  const page = await request(server).get(path).set('Cookie', cookie);
  return /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
}

/** A partner's session that must be granted: its cookie, the home page's CSRF token, where the sign-in sent it. */
export async function session(server: Server, apiKey: string, headers: Record<string, string> = {}) {
  const { res, setCookie, cookie } = await signIn(server, { apiKey }, headers);
  expect(res.status).toBe(303);
  return {
    cookie: cookie!,
    setCookie: setCookie!,
    csrf: await csrfOf(server, cookie!),
    location: res.headers.location!,
  };
}
