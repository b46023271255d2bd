import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';

// Console sessions live in this process only: the API key (or operator token) a user signed in with is held in
// memory, keyed by a random id that is the only thing the browser gets (an HttpOnly cookie). Nothing is written to
// the database, so a restart signs everyone out, which is what a sandbox user expects.

const COOKIE = 'console_session';
const IDLE_MS = 8 * 3600_000;
/**
 * Sessions of the whole server: past it a sign-in is refused (no other user's session is ever evicted for it).
 * @internal exported for test/console/session-bounds.test.ts, which fills the store to it
 */
export const MAX_SESSIONS = 10_000;
/**
 * Sessions of one API key (or of the operator token): its oldest goes first, never another key's.
 * @internal exported for test/console/session-bounds.test.ts, which signs one key in past it
 */
export const MAX_SESSIONS_PER_KEY = 20;
/** What a failed form keeps of each value it shows again, and how many values (docs/hosted.md names each bound). */
const MAX_KEPT_VALUE_CHARS = 4096;
const MAX_KEPT_VALUES = 32;
const MAX_MESSAGE_CHARS = 1024;
/** Accounts an operator session remembers (the operator API has no listing). */
const MAX_OPERATOR_ACCOUNTS = 50;

/** A one-shot message for the next page: the outcome of an action, and what the user typed when it failed. */
export interface Flash {
  tone: 'ok' | 'error';
  title: string;
  /** The API's error answer, shown as-is. */
  error?: { status: number; code: number; message: string };
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

/** The server has as many console sessions as it keeps: a sign-in is refused until some end or expire. */
export class SessionsFull extends Error {}

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  /** Per credential (an API key, or the operator token), its session ids, oldest first. */
  private readonly byCredential = new Map<string, string[]>();

  constructor(private readonly nowMs: () => number) {}

  /** A new session; the credential's oldest goes when it has MAX_SESSIONS_PER_KEY; throws SessionsFull. */
  create(fields: Pick<Session, 'apiKey' | 'adminToken'>): Session {
    const credential = credentialOf(fields);
    const own = this.byCredential.get(credential) ?? [];
    if (own.length >= MAX_SESSIONS_PER_KEY) this.end(own[0]!);
    if (this.sessions.size >= MAX_SESSIONS) this.dropIdle();
    if (this.sessions.size >= MAX_SESSIONS) throw new SessionsFull();
    const session: Session = { id: token(), csrf: token(), lastSeenMs: this.nowMs(), operatorAccounts: [], ...fields };
    this.sessions.set(session.id, session);
    this.byCredential.set(credential, [...(this.byCredential.get(credential) ?? []), session.id]);
    return session;
  }

  find(id: string | undefined): Session | undefined {
    if (!id) return undefined;
    const session = this.sessions.get(id);
    if (!session) return undefined;
    if (this.nowMs() - session.lastSeenMs > IDLE_MS) {
      this.end(id);
      return undefined;
    }
    session.lastSeenMs = this.nowMs();
    return session;
  }

  end(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    const credential = credentialOf(session);
    const left = (this.byCredential.get(credential) ?? []).filter((other) => other !== id);
    if (left.length === 0) this.byCredential.delete(credential);
    else this.byCredential.set(credential, left);
  }

  private dropIdle(): void {
    const now = this.nowMs();
    for (const [id, session] of this.sessions) if (now - session.lastSeenMs > IDLE_MS) this.end(id);
  }
}

/** Puts an account first in the operator session's list, which keeps at most MAX_OPERATOR_ACCOUNTS. */
export function remember(session: Session, accountId: string): void {
  const seen = session.operatorAccounts.filter((id) => id !== accountId);
  session.operatorAccounts = [accountId, ...seen].slice(0, MAX_OPERATOR_ACCOUNTS);
}

/** The credential a session stands for; a keyed hash is not needed, the session holds the key itself. */
function credentialOf(fields: Pick<Session, 'apiKey' | 'adminToken'>): string {
  return fields.apiKey !== undefined ? `key:${fields.apiKey}` : 'operator';
}

/**
 * A flash within its bounds: a form keeps at most MAX_KEPT_VALUES values of MAX_KEPT_VALUE_CHARS each (an alias of
 * a million characters kept whole made the next page a megabyte, and 60 such sessions 127 MB of the server's memory),
 * messages at most MAX_MESSAGE_CHARS.
 */
export function boundedFlash(flash: Flash): Flash {
  const bounded: Flash = { ...flash, title: flash.title.slice(0, MAX_MESSAGE_CHARS) };
  if (flash.error) bounded.error = { ...flash.error, message: flash.error.message.slice(0, MAX_MESSAGE_CHARS) };
  if (flash.values) {
    bounded.values = Object.fromEntries(
      Object.entries(flash.values)
        .slice(0, MAX_KEPT_VALUES)
        .map(([k, v]) => [k.slice(0, 64), v.slice(0, MAX_KEPT_VALUE_CHARS)]),
    );
  }
  return bounded;
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
