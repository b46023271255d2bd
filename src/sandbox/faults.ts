import { Hono } from 'hono';
import type { ServerDeps } from '../server-deps.js';
import { clearFaults, listFaults, setFaults, type FaultRule } from '../domain/faults.js';
import { OK } from '../api/views.js';
import { runCommand } from '../http/command.js';
import type { AppEnv } from '../http/context.js';
import { readJsonObject } from '../http/middleware/json-body.js';
import { optionalBoolean, optionalInteger, optionalString, requiredString, type Body } from '../http/validate.js';
import { invalidField } from '../domain/errors.js';

const MAX_RULES = 50;
const MAX_LATENCY_MS = 60_000;
const MAX_COUNT = 1_000_000;

function isObject(v: unknown): v is Body {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseRule(raw: unknown, i: number): FaultRule {
  if (!isObject(raw)) throw invalidField(`rules[${i}] must be an object`);
  const path = requiredString(raw, 'path', 512);
  if (!path.startsWith('/'))
    throw invalidField(`rules[${i}].path must be a full request path such as /v1/card/deposit`);
  const rule: FaultRule = {
    path,
    // One use by default: the typical script fails a call once and proves the retry.
    count: optionalInteger(raw, 'count', 1, MAX_COUNT) ?? 1,
    latencyMs: optionalInteger(raw, 'latencyMs', 0, MAX_LATENCY_MS) ?? 0,
    dropResponse: optionalBoolean(raw, 'dropResponse') ?? false,
  };
  if (raw.respond !== undefined) {
    if (!isObject(raw.respond)) throw invalidField(`rules[${i}].respond must be an object`);
    const httpStatus = optionalInteger(raw.respond, 'httpStatus', 400, 599);
    const code = optionalInteger(raw.respond, 'code', 1, 2_147_483_647);
    if (httpStatus === undefined || code === undefined)
      throw invalidField(`rules[${i}].respond needs httpStatus (400-599) and code`);
    rule.respond = { httpStatus, code, message: optionalString(raw.respond, 'message') };
  }
  if (rule.respond && rule.dropResponse) throw invalidField(`rules[${i}] cannot both respond and drop the response`);
  if (!rule.respond && !rule.dropResponse && rule.latencyMs === 0) {
    throw invalidField(`rules[${i}] needs latencyMs, respond or dropResponse`);
  }
  return rule;
}

/** faults (replaces this account's rules) and faults/clear. */
export function faultRoutes(deps: ServerDeps) {
  return new Hono<AppEnv>()
    .post('/faults', async (c) => {
      const body = await readJsonObject(c);
      if (!Array.isArray(body.rules)) throw invalidField('rules must be an array');
      if (body.rules.length > MAX_RULES) throw invalidField(`rules must hold at most ${MAX_RULES} rules`);
      const rules = body.rules.map(parseRule);
      const accountId = c.get('account').id;
      runCommand(c, deps, () => setFaults(deps.db, accountId, rules));
      return c.json({ ...OK, rules: listFaults(deps.db, accountId) });
    })
    .post('/faults/clear', async (c) => {
      await readJsonObject(c);
      runCommand(c, deps, () => clearFaults(deps.db, c.get('account').id));
      return c.json({ ...OK });
    });
}
