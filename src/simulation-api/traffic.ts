import { tenantOf } from '../domain/accounts/tenants.js';
import { listTraffic, planTrafficRun, startTraffic, stopTraffic, type TrafficView } from '../domain/traffic/runs.js';
import { STORY_KINDS, type StoryKind } from '../domain/traffic/plan.js';
import { caughtUpNow } from '../http/account-clock.js';
import { runCommand } from '../http/run-command.js';
import type { Handlers } from '../http/router.js';
import type { RequestBody } from '../http/request-body.js';
import { OK } from '../http/envelope.js';

import type { ServerDeps } from '../http/server-deps.js';

const view = (t: TrafficView) => ({
  trafficId: t.trafficId,
  status: t.status,
  seed: t.seed,
  cardIds: t.cardIds,
  days: t.days,
  perCardPerDay: t.perCardPerDay,
  startedAt: new Date(t.startedAtMs).toISOString(),
  scheduled: t.scheduled,
});

/** The weights the body gives (its schema names the kinds and bounds each), by story kind. */
function mixOf(body: RequestBody<'POST /sandbox/v1/traffic/start'>): Partial<Record<StoryKind, number>> | undefined {
  const given = body.mix;
  if (given === undefined) return undefined;
  return Object.fromEntries(STORY_KINDS.flatMap((k) => (given[k] === undefined ? [] : [[k, given[k]]])));
}

/** traffic/start, stop and list (docs/design.md section 15): card network traffic on the account clock. */
export function trafficHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/traffic/start': async (c, body) => {
      const account = c.get('account');
      const input = {
        cardIds: body.cardIds,
        days: body.days,
        perCardPerDay: body.perCardPerDay,
        // A run without a seed gets one, answered so that it can be replayed.
        seed: body.seed ?? Number.parseInt(deps.ids.hex(4), 16),
        mix: mixOf(body),
      };
      const runner = { id: account.id, tenantId: tenantOf(account) };
      const planned = await planTrafficRun(deps, runner, input, () => deps.fairShare.turn(runner.tenantId));
      const run = await runCommand(c, deps, (deps, now) => startTraffic(deps, runner, input, planned, now));
      return c.json({ ...OK, ...view(run) });
    },
    'POST /sandbox/v1/traffic/stop': async (c, body) => {
      const trafficId = body.trafficId;
      const r = await runCommand(c, deps, (deps, now) => stopTraffic(deps, c.get('account').id, trafficId, now));
      return c.json({ ...OK, ...view(r), cancelled: r.cancelled });
    },
    'POST /sandbox/v1/traffic/list': async (c) => {
      await caughtUpNow(c, deps);
      return c.json({ ...OK, runs: (await listTraffic(deps, c.get('account').id)).map(view) });
    },
  };
}
