import type { MiddlewareHandler } from 'hono';
import { DomainError } from '../../domain/kernel/errors.js';
import type { ConnectionGuard, Refusal } from '../connection-guard.js';
import type { AppEnv } from '../context.js';
import { errorResponse } from '../errors.js';

// Hosted mode: a request on a connection the guard held over a bound (connection-guard.ts) is answered, never left
// to a silent close. It comes in when it carries a key (its tenant's connection budget bounds it next) or when room
// can be made for it now; else it is answered 429 with Retry-After, and its connection closes after the answer.

const WHY: Record<Refusal['bound'], (limit: number) => string> = {
  client: (n) => `Too many connections without an API key from this address: at most ${n} at once`,
  anonymous: (n) => `Too many connections without an API key: the server holds at most ${n} at once`,
  total: (n) => `Too many connections: the server holds ${n}, every one carrying a request`,
};

/** The first step of every request in hosted mode: before anything reads the request or spends a budget on it. */
export function connectionBound(guard: ConnectionGuard): MiddlewareHandler<AppEnv> {
  return async function connectionBound(c, next) {
    const incoming = c.env?.incoming;
    if (!incoming?.socket) return next();
    const { headers, socket } = incoming;
    const admission = guard.admit(socket, headers['x-api-key'] !== undefined || headers.authorization !== undefined);
    if (!admission.admitted) {
      c.header('Retry-After', '1');
      c.header('Connection', 'close');
      return errorResponse(
        c,
        new DomainError('RATE_LIMITED', `${WHY[admission.bound](admission.limit)}; retry in 1 s`),
      );
    }
    await next();
    // Let in past its address's bound for a key that proved nothing (a 401, a route that takes none): not kept open.
    if (admission.byKey && guard.isAnonymous(socket)) c.header('Connection', 'close');
  };
}
