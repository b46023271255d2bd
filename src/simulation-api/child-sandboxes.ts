import { OK } from '../http/envelope.js';
import type { ServerDeps } from '../http/server-deps.js';
import { deleteSandbox, listSandboxes, newChildSandbox, type NewSandbox } from '../domain/accounts/child-sandboxes.js';
import { runCommand } from '../http/run-command.js';
import type { Handlers } from '../http/router.js';
import type { RequestBody } from '../http/request-body.js';
import { microsOf, ppmOf } from '../http/amounts.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** The body, already checked against contracts/sandbox/sandboxes/create.request.json, as domain input. */
function readNewSandbox(body: RequestBody<'POST /sandbox/v1/sandboxes/create'>): NewSandbox {
  return {
    name: body.name,
    balanceMicros: body.balance === 0 ? 0 : body.balance === undefined ? undefined : microsOf(body.balance),
    depositFeeRatePpm: body.depositFeeRate === undefined ? undefined : ppmOf(body.depositFeeRate),
    ttlSeconds: body.ttlSeconds,
    delivers: body.deliveries,
  };
}

/** sandboxes/create, sandboxes/list, sandboxes/delete: child accounts of the caller's, for isolated runs. */
export function sandboxesHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/sandboxes/create': async (c, body) => {
      const input = readNewSandbox(body);
      const created = await newChildSandbox(deps, c.get('account'), input);
      return c.json({
        ...OK,
        accountId: created.account.id,
        apiKey: created.apiKey,
        keyId: created.keyId,
        depositAddress: created.depositAddress,
        expiresAt: iso(created.expiresAtMs),
      });
    },
    'POST /sandbox/v1/sandboxes/list': async (c) => {
      const sandboxes = (await runCommand(c, deps, (deps) => listSandboxes(deps, c.get('account').id))).map((s) => ({
        accountId: s.accountId,
        name: s.name,
        createdAt: iso(s.createdAtMs),
        expiresAt: iso(s.expiresAtMs),
      }));
      return c.json({ ...OK, sandboxes });
    },
    'POST /sandbox/v1/sandboxes/delete': async (c, body) => {
      await deleteSandbox(deps, c.get('account').id, body.accountId);
      return c.json({ ...OK });
    },
  };
}
