import { ensureDepositAddress } from '../domain/accounts/accounts.js';
import {
  createAccount,
  getAccount,
  updateAccount,
  type Account,
  type AccountPatch,
} from '../domain/accounts/accounts.js';
import { issueKey, listKeys, revokeKey } from '../domain/accounts/api-keys.js';
import type { ServerDeps } from '../http/server-deps.js';
import { isTronAddress } from '../domain/chain/deposit-address.js';
import { formatPpm } from '../domain/kernel/money.js';
import { OK } from '../http/envelope.js';

import type { Handlers } from '../http/router.js';
import { microsOf, ppmOf } from '../http/amounts.js';
import { invalidField } from '../domain/kernel/errors.js';
import { tenantHoldings } from '../http/middleware/tenant-budget.js';
import { tenantOf, tenantStorage } from '../domain/accounts/tenants.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

async function readAddress(body: { depositAddress?: string | null }): Promise<'auto' | null | string | undefined> {
  const v = body.depositAddress;
  if (v === undefined || v === null || v === 'auto') return v;
  if (typeof v !== 'string' || !(await isTronAddress(v))) {
    throw invalidField('depositAddress must be "auto", null or a TRON base58 address');
  }
  return v;
}

async function accountView(deps: ServerDeps, a: Account) {
  return {
    accountId: a.id,
    name: a.name,
    depositFeeRate: formatPpm(a.depositFeeRatePpm),
    requireIdempotencyKey: a.requireIdempotencyKey,
    depositAddress: a.depositAddress,
    defaultBinId: a.defaultBinId,
    createdAt: new Date(a.createdAtMs).toISOString(),
    keys: (await listKeys(deps, a.id)).map((k) => ({
      keyId: k.keyId,
      prefix: k.prefix,
      createdAt: iso(k.createdAtMs),
      revokedAt: iso(k.revokedAtMs),
    })),
  };
}

export function accountHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /admin/v1/accounts': async (c, body) => {
      const name = body.name;
      const depositFeeRatePpm =
        (body.depositFeeRate === undefined ? undefined : ppmOf(body.depositFeeRate)) ?? deps.config.depositFeeRatePpm;
      const requireIdempotencyKey = body.requireIdempotencyKey;
      const balanceMicros = body.balance === 0 ? 0 : body.balance === undefined ? undefined : microsOf(body.balance);
      const given = await readAddress(body);
      const depositAddress = given === undefined ? 'auto' : given;
      const { account, key } = await deps.transactions.run(async (deps) => {
        const account = await createAccount(deps, {
          name,
          depositFeeRatePpm,
          requireIdempotencyKey,
          depositAddress,
          balanceMicros,
        });
        return { account, key: await issueKey(deps, account.id) };
      });
      const address = await ensureDepositAddress(deps, account.id);
      return c.json({ accountId: account.id, apiKey: key.apiKey, keyId: key.keyId, depositAddress: address }, 201);
    },
    'GET /admin/v1/accounts/{id}': async (c) => {
      const account = await getAccount(deps, c.req.param('id')!);
      await ensureDepositAddress(deps, account.id);
      return c.json(await accountView(deps, await getAccount(deps, account.id)));
    },
    'GET /admin/v1/accounts/{id}/usage': async (c) => {
      const account = await getAccount(deps, c.req.param('id')!);
      const tenantId = tenantOf(account);
      const limits = deps.config.tenant;
      const { childSandboxes, requestLogBytes } = await tenantStorage(deps, tenantId);
      return c.json({
        accountId: account.id,
        tenantId,
        childSandboxes,
        ...tenantHoldings(deps, tenantId),
        inFlightLimit: limits.maxInFlight,
        connectionsLimit: limits.maxConnections,
        requestLogBytes,
        requestLogBytesLimit: limits.requestLogBytes,
      });
    },
    'PATCH /admin/v1/accounts/{id}': async (c, body) => {
      const id = (await getAccount(deps, c.req.param('id')!)).id;
      const patch: AccountPatch = {
        name: body.name,
        depositFeeRatePpm: body.depositFeeRate === undefined ? undefined : ppmOf(body.depositFeeRate),
        requireIdempotencyKey: body.requireIdempotencyKey,
        depositAddress: await readAddress(body),
      };
      await deps.transactions.run((deps) => updateAccount(deps, id, patch));
      await ensureDepositAddress(deps, id);
      return c.json(await accountView(deps, await getAccount(deps, id)));
    },
    'POST /admin/v1/accounts/{id}/keys': async (c) => {
      const id = (await getAccount(deps, c.req.param('id')!)).id;
      return c.json(await deps.transactions.run((deps) => issueKey(deps, id)), 201);
    },
    'DELETE /admin/v1/accounts/{id}/keys/{keyId}': async (c) => {
      const id = (await getAccount(deps, c.req.param('id')!)).id;
      await deps.transactions.run((deps) => revokeKey(deps, id, c.req.param('keyId')!));
      return c.json({ ...OK });
    },
  };
}
