import { Hono } from 'hono';
import { tenantOf } from '../domain/tenants.js';
import { listTraffic, startTraffic, stopTraffic, type TrafficView } from '../domain/traffic.js';
import { STORY_KINDS, type StoryKind } from '../domain/traffic-plan.js';
import { runCommand, caughtUpNow } from '../http/command.js';
import type { AppEnv } from '../http/context.js';
import { OK } from '../http/envelope.js';
import { readJsonObject } from '../http/middleware/json-body.js';
import {
  optionalInteger,
  optionalIntegerMap,
  optionalStringList,
  requiredInteger,
  requiredString,
  type Body,
} from '../http/validate.js';
import type { ServerDeps } from '../server-deps.js';

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
function mixOf(body: Body): Partial<Record<StoryKind, number>> | undefined {
  const given = optionalIntegerMap(body, 'mix');
  if (given === undefined) return undefined;
  return Object.fromEntries(STORY_KINDS.flatMap((k) => (given[k] === undefined ? [] : [[k, given[k]]])));
}

/** traffic/start, stop and list (docs/design.md section 14): card network traffic on the account clock. */
export function trafficRoutes(deps: ServerDeps) {
  return new Hono<AppEnv>()
    .post('/traffic/start', async (c) => {
      const body = await readJsonObject(c);
      const account = c.get('account');
      const input = {
        cardIds: optionalStringList(body, 'cardIds'),
        days: requiredInteger(body, 'days'),
        perCardPerDay: requiredInteger(body, 'perCardPerDay'),
        // A run without a seed gets one, answered so that it can be replayed.
        seed: optionalInteger(body, 'seed') ?? Number.parseInt(deps.ids.hex(4), 16),
        mix: mixOf(body),
      };
      const run = runCommand(c, deps, (now) =>
        startTraffic(deps, { id: account.id, tenantId: tenantOf(account) }, input, now),
      );
      return c.json({ ...OK, ...view(run) });
    })
    .post('/traffic/stop', async (c) => {
      const trafficId = requiredString(await readJsonObject(c), 'trafficId');
      const r = runCommand(c, deps, (now) => stopTraffic(deps, c.get('account').id, trafficId, now));
      return c.json({ ...OK, ...view(r), cancelled: r.cancelled });
    })
    .post('/traffic/list', async (c) => {
      await readJsonObject(c);
      caughtUpNow(c, deps);
      return c.json({ ...OK, runs: listTraffic(deps, c.get('account').id).map(view) });
    });
}
