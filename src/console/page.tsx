import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { Api, Failure } from './api.js';
import { boundedFlash, type Flash, type Session } from './session.js';
import { NAV, OPERATOR_NAV, Shell } from './shell.js';

// What every console handler shares: the session, the API client, the parsed form, and the two ways a POST ends
// (back to a page with a flash message, after success or after an API error that keeps what the user typed).

export interface ConsoleEnv {
  Variables: {
    session: Session;
    api: Api;
    /** The submitted form of a POST, as strings (the CSRF token already checked and removed). */
    form: Record<string, string>;
    aliases: Map<string, string | null>;
  };
}

export type Ctx = Context<ConsoleEnv>;

/** Security headers of every console page: nothing framed, nothing loaded or posted elsewhere, nothing cached. */
export const PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

/** The one-shot message of the session, removed as it is read. */
export function takeFlash(c: Ctx): Flash | undefined {
  const session = c.get('session');
  const flash = session.flash;
  session.flash = undefined;
  return flash;
}

/** The values a failed submission of `form` left behind, so the form shows what the user typed. */
export function kept(flash: Flash | undefined, form: string): Record<string, string> {
  return flash?.form === form && flash.values ? flash.values : {};
}

/** A full page in the console's shell, with the account time read from the API (or none for the operator). */
export async function page(
  c: Ctx,
  opts: { title: string; active?: string; flash?: Flash; status?: 200 | 400 | 404 },
  body: Child,
) {
  const session = c.get('session');
  let now: string | undefined;
  if (session.apiKey) {
    const clock = await c.get('api').post('/sandbox/v1/clock', {});
    if (clock.ok) now = clock.body.now;
  }
  const html = (
    <Shell
      title={opts.title}
      active={opts.active}
      nav={session.apiKey ? NAV : OPERATOR_NAV}
      csrf={session.csrf}
      now={now}
      flash={opts.flash}
    >
      {body}
    </Shell>
  );
  return c.html('<!DOCTYPE html>' + html.toString(), opts.status ?? 200, PAGE_HEADERS);
}

/** An HTML fragment for a live region. */
export function fragment(c: Ctx, body: Child) {
  return c.html((body ?? '').toString(), 200, PAGE_HEADERS);
}

/** Ends a successful action: a message for the next page, and a redirect there (POST, redirect, GET). */
export function done(c: Ctx, to: string, flash: Omit<Flash, 'tone'>) {
  c.get('session').flash = boundedFlash({ tone: 'ok', ...flash });
  return c.redirect(to, 303);
}

/** Ends a failed action: the API's {code, message}, and what was typed in `form` (never a secret). */
/** The Idempotency-Key the posted form was rendered with (`OperationKey`), for its keyed write. */
export function operationKey(c: Ctx): { idempotencyKey?: string } {
  return { idempotencyKey: c.get('form').idempotencyKey };
}

export function failed(c: Ctx, to: string, title: string, answer: Failure, form?: string) {
  const values = form ? { ...c.get('form') } : undefined;
  c.get('session').flash = boundedFlash({ ...errorFlash(title, answer), form, values });
  return c.redirect(to, 303);
}

/** The message of an answer that failed, for pages that show it inline instead of as a flash. */
export function errorFlash(title: string, answer: Failure): Flash {
  return { tone: 'error', title, error: { status: answer.status, ...answer.body } };
}

/** The page of something the API did not find: its error, and a way back. */
export function notFound(c: Ctx, opts: { title: string; active: string; back: string }, what: string, answer: Failure) {
  const flash = errorFlash(`${what} not found`, answer);
  return page(
    c,
    { title: opts.title, active: opts.active, flash, status: 404 },
    <p>
      <a href={opts.back}>Back</a>
    </p>,
  );
}

/** Fills the alias cache for these cards (card/list has no alias; card/detail has it and an alias never changes). */
export async function loadAliases(c: Ctx, cardIds: string[]): Promise<Map<string, string | null>> {
  const cache = c.get('aliases');
  // A bound on memory for a long-running shared server: forgetting costs only a re-read.
  if (cache.size > 100_000) cache.clear();
  const missing = cardIds.filter((id) => !cache.has(id));
  const details = await Promise.all(missing.map((cardId) => c.get('api').post('/v1/card/detail', { cardId })));
  details.forEach((d, i) => {
    if (d.ok) cache.set(missing[i]!, d.body.alias ? d.body.alias : null);
  });
  return cache;
}

export const enc = encodeURIComponent;
