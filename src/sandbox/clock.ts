import { Hono } from 'hono';
import { accountNowMs, clockMode, setClockMode, shiftClock } from '../domain/clock.js';
import { OK } from '../api/views.js';
import { invalidField } from '../domain/errors.js';
import { caughtUpNow, runCommand, transact } from '../http/command.js';
import type { AppEnv } from '../http/context.js';
import { readJsonObject } from '../http/middleware/json-body.js';
import { optionalEnum } from '../http/validate.js';
import type { ServerDeps } from '../server-deps.js';

const MAX_ADVANCE_SECONDS = 10 * 365 * 24 * 3600;

/** clock: switch running/frozen and advance, running every job that fell due before answering. */
export function clockRoutes(deps: ServerDeps) {
  return new Hono<AppEnv>().post('/clock', async (c) => {
    const body = await readJsonObject(c);
    const mode = optionalEnum(body, 'mode', ['running', 'frozen'] as const);
    const advance = body.advanceSeconds;
    if (
      advance !== undefined &&
      (typeof advance !== 'number' || !Number.isFinite(advance) || advance < 0 || advance > MAX_ADVANCE_SECONDS)
    ) {
      throw invalidField(`advanceSeconds must be a number between 0 and ${MAX_ADVANCE_SECONDS}`);
    }
    const accountId = c.get('account').id;
    if (mode) runCommand(c, deps, () => setClockMode(deps, accountId, mode));
    if (advance !== undefined) {
      const deltaMs = Math.round(advance * 1000);
      // Every job due on the way runs at its own instant (webhook attempts included, so they are awaited).
      await deps.jobs.runDue(accountId, caughtUpNow(c, deps) + deltaMs, { includeBackground: true });
      transact(deps, () => shiftClock(deps, accountId, deltaMs));
    }
    return c.json({
      ...OK,
      now: new Date(accountNowMs(deps, accountId)).toISOString(),
      mode: clockMode(deps, accountId),
    });
  });
}
