import { Hono } from 'hono';
import { OK } from '../http/envelope.js';
import type { ServerDeps } from '../server-deps.js';
import { createSandbox, deleteSandbox, listSandboxes, type NewSandbox } from '../domain/child-sandboxes.js';
import { runCommand } from '../http/command.js';
import type { AppEnv } from '../http/context.js';
import { ensureDepositAddress } from '../http/deposit-address.js';
import { readJsonObject } from '../http/middleware/json-body.js';
import {
  optionalAmount,
  optionalBoolean,
  optionalInteger,
  optionalRatePpm,
  optionalString,
  requiredString,
  type Body,
} from '../http/validate.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** The body, already checked against contracts/sandbox/sandboxes/create.request.json, as domain input. */
function readNewSandbox(body: Body): NewSandbox {
  return {
    name: optionalString(body, 'name'),
    balanceMicros: body.balance === 0 ? 0 : optionalAmount(body, 'balance'),
    depositFeeRatePpm: optionalRatePpm(body, 'depositFeeRate'),
    ttlSeconds: optionalInteger(body, 'ttlSeconds'),
    delivers: optionalBoolean(body, 'deliveries'),
  };
}

/** sandboxes/create, sandboxes/list, sandboxes/delete: child accounts of the caller's, for isolated runs. */
export function sandboxesRoutes(deps: ServerDeps) {
  return new Hono<AppEnv>()
    .post('/sandboxes/create', async (c) => {
      const input = readNewSandbox(await readJsonObject(c));
      const created = runCommand(c, deps, () => createSandbox(deps, c.get('account'), input));
      const depositAddress = await ensureDepositAddress(deps, created.account.id);
      return c.json({
        ...OK,
        accountId: created.account.id,
        apiKey: created.apiKey,
        keyId: created.keyId,
        depositAddress,
        expiresAt: iso(created.expiresAtMs),
      });
    })
    .post('/sandboxes/list', async (c) => {
      await readJsonObject(c);
      const sandboxes = runCommand(c, deps, () => listSandboxes(deps, c.get('account').id)).map((s) => ({
        accountId: s.accountId,
        name: s.name,
        createdAt: iso(s.createdAtMs),
        expiresAt: iso(s.expiresAtMs),
      }));
      return c.json({ ...OK, sandboxes });
    })
    .post('/sandboxes/delete', async (c) => {
      const body = await readJsonObject(c);
      const accountId = requiredString(body, 'accountId');
      runCommand(c, deps, () => deleteSandbox(deps, c.get('account').id, accountId));
      return c.json({ ...OK });
    });
}
