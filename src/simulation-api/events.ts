import { OK } from '../http/envelope.js';
import type { ServerDeps } from '../http/server-deps.js';
import { eventsWithDeliveries, toEnvelope } from '../domain/events/outbox.js';
import { caughtUpNow } from '../http/account-clock.js';
import type { Handlers } from '../http/router.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * events: the outbox of this account, newest first, each with its delivery state. The data is the outbox's, so
 * delivery-only fields (the 3DS code) never appear here.
 */
export function eventsHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/events': async (c, body) => {
      const type = body.type;
      const limit = body.limit ?? 100;
      caughtUpNow(c, deps);
      const events = eventsWithDeliveries(deps, c.get('account').id, { type, limit }).map(
        ({ event, delivery: d, attempts }) => ({
          ...toEnvelope(event),
          delivery: d
            ? { state: d.state, attempts, nextAttemptAt: iso(d.next_attempt_at_ms) }
            : { state: 'none', attempts, nextAttemptAt: null },
        }),
      );
      return c.json({ ...OK, events });
    },
  };
}
