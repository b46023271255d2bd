import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';

// Console sessions live in this process only: the API key (or operator token) a user signed in with is held in
// memory, keyed by a random id that is the only thing the browser gets (an HttpOnly cookie). Nothing is written to
// the database, so a restart signs everyone out, which is what a sandbox user expects.

export const COOKIE = 'console_session';
const IDLE_MS = 8 * 3600_000;
const MAX_SESSIONS = 10_000;

/** A one-shot message for the next page: the outcome of an action, and what the user typed when it failed. */
export interface Flash {
  tone: 'ok' | 'error';
  title: string;
  /** The API's error answer, shown as-is. */
  error?: { status: number; code: unknown; message: unknown };
  /** Which form the values belong to, and the values (never a key or token). */
  form?: string;
  values?: Record<string, string>;
  /** A secret shown once (a new webhook secret or API key, an OTP): kept for one page view only. */
  reveal?: { label: string; value: string }[];
}

export interface Session {
  id: string;
  csrf: string;
  apiKey?: string;
  adminToken?: string;
  lastSeenMs: number;
  flash?: Flash;
  /** Accounts the operator created or opened in this session (the operator API has no account listing). */
  operatorAccounts: string[];
}

/** Random ids from the OS CSPRNG: a session id is a bearer credential, so no seeded or test id source is used. */
const token = () => randomBytes(32).toString('base64url');

export class SessionStore {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly nowMs: () => number) {}

  create(fields: Pick<Session, 'apiKey' | 'adminToken'>): Session {
    if (this.sessions.size >= MAX_SESSIONS) {
      // Map order is insertion order: the oldest session goes first.
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    const session: Session = { id: token(), csrf: token(), lastSeenMs: this.nowMs(), operatorAccounts: [], ...fields };
    this.sessions.set(session.id, session);
    return session;
  }

  find(id: string | undefined): Session | undefined {
    if (!id) return undefined;
    const session = this.sessions.get(id);
    if (!session) return undefined;
    if (this.nowMs() - session.lastSeenMs > IDLE_MS) {
      this.sessions.delete(id);
      return undefined;
    }
    session.lastSeenMs = this.nowMs();
    return session;
  }

  end(id: string): void {
    this.sessions.delete(id);
  }
}

/** Whether the browser reached us over https (directly or through a TLS-terminating proxy). */
function secureRequest(c: Context): boolean {
  return (
    new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto')?.split(',')[0]?.trim() === 'https'
  );
}

export function sessionCookie(c: Context, id: string): string {
  const secure = secureRequest(c) ? '; Secure' : '';
  return `${COOKIE}=${id}; Path=/console; HttpOnly; SameSite=Strict${secure}`;
}

export function clearedCookie(c: Context): string {
  const secure = secureRequest(c) ? '; Secure' : '';
  return `${COOKIE}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0${secure}`;
}

export function cookieValue(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === COOKIE) return rest.join('=');
  }
  return undefined;
}

/** Constant-time comparison of the form's CSRF token with the session's. */
export function csrfMatches(session: Session, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(session.csrf);
  return a.length === b.length && timingSafeEqual(a, b);
}
