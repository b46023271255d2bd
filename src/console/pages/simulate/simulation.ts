import type { PostBody, PostPath, Success } from '../../api.js';
import { done, failed, type Ctx } from '../../page.js';
import type { Flash } from '../../session.js';

// What every Simulate form shares: where it returns, what it is given to render, and the shape of its handler
// (the form's fields become one simulation call; its answer becomes the next page's message).

export const TO = '/console/simulate';

/** A form's props: the session's CSRF token and what a failed submission of it left behind. */
export interface FormProps {
  csrf: string;
  values: Record<string, string>;
}

/** The form field, trimmed; absent when empty, so the API applies its default or names the missing field. */
export const field = (form: Record<string, string>, name: string): string | undefined =>
  (form[name] ?? '').trim() === '' ? undefined : form[name]!.trim();

/** The handler of one form: build the call's body from the form, call, and report the answer. */
export function simulation<P extends PostPath>(s: {
  /** The form's name: a failed submission keeps its values under it. */
  form: string;
  path: P;
  body: (form: Record<string, string>) => PostBody<P>;
  done: (answer: Success<'POST', P>) => Omit<Flash, 'tone'>;
  refused: string;
}) {
  return async (c: Ctx) => {
    const answer = await c.get('api').post(s.path, s.body(c.get('form')));
    return answer.ok ? done(c, TO, s.done(answer.body)) : failed(c, TO, s.refused, answer, s.form);
  };
}
