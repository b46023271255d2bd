import { setClock } from '../domain/kernel/clock.js';
import { OK } from '../http/envelope.js';
import type { Handlers } from '../http/router.js';

import type { ServerDeps } from '../http/server-deps.js';

/** clock: switch running/frozen and advance, running every job that fell due before answering. */
export function clockHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/clock': async (c, body) => {
      const mode = body.mode;
      const advance = body.advanceSeconds as number | undefined;
      const advanceMs = advance === undefined ? undefined : Math.round(advance * 1000);
      const clock = await setClock(deps, c.get('account').id, { mode, advanceMs });
      return c.json({ ...OK, now: new Date(clock.nowMs).toISOString(), mode: clock.mode });
    },
  };
}
