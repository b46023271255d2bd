import { Hono } from 'hono';
import { accountNowMs, assertAdvanceWithinLimit, clockMode, setClockMode, shiftClock } from '../domain/clock.js';
import { OK } from '../http/envelope.js';
import { findAccount } from '../domain/accounts.js';
import { DomainError } from '../domain/errors.js';
import { caughtUpNow, runCommand, transact } from '../http/command.js';
import type { AppEnv } from '../http/context.js';
import { readJsonObject } from '../http/middleware/json-body.js';
import { optionalEnum } from '../http/validate.js';
import type { ServerDeps } from '../server-deps.js';

/** clock: switch running/frozen and advance, running every job that fell due before answering. */
export function clockRoutes(deps: ServerDeps) {
  return new Hono<AppEnv>().post('/clock', async (c) => {
    const body = await readJsonObject(c);
    const mode = optionalEnum(body, 'mode', ['running', 'frozen'] as const);
    const advance = body.advanceSeconds as number | undefined;
    const accountId = c.get('account').id;
    if (advance !== undefined) assertAdvanceWithinLimit(deps, accountId, Math.round(advance * 1000));
    if (mode) runCommand(c, deps, () => setClockMode(deps, accountId, mode));
    if (advance !== undefined) {
      const deltaMs = Math.round(advance * 1000);
      // Every job due on the way runs at its own instant (webhook attempts included, so they are awaited).
      await deps.jobs.runDue(accountId, caughtUpNow(c, deps) + deltaMs, { includeBackground: true });
      // A child sandbox can be deleted by its parent while a webhook attempt of the advance is awaited.
      if (!findAccount(deps, accountId)) throw new DomainError('SANDBOX_NOT_FOUND');
      transact(deps, () => shiftClock(deps, accountId, deltaMs));
    }
    return c.json({
      ...OK,
      now: new Date(accountNowMs(deps, accountId)).toISOString(),
      mode: clockMode(deps, accountId),
    });
  });
}
