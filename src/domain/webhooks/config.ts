import type { Deps } from '../kernel/deps.js';
import { DomainError } from '../kernel/errors.js';
import { assertInTransaction } from '../../store/db.js';
import {
  insertWebhookConfig,
  updateWebhookConfig,
  updateWebhookSecret,
  webhookConfigRow,
  type WebhookConfigRow,
} from '../../store/webhook-config.js';

// The account's webhook endpoint (spec "Webhook configuration"). Plain functions over the store; the HTTP layer
// validates input first, so nothing here runs on bad input.

export interface WebhookConfig {
  accountId: string;
  url: string;
  enabled: boolean;
  deliver3dsCode: boolean;
  secretPrefix: string;
}

const SECRET_PREFIX_LENGTH = 14;

const toConfig = (r: WebhookConfigRow): WebhookConfig => ({
  accountId: r.account_id,
  url: r.url,
  enabled: r.enabled === 1,
  deliver3dsCode: r.deliver_3ds_code === 1,
  secretPrefix: r.secret_prefix,
});

async function row(deps: Deps, accountId: string): Promise<WebhookConfigRow | undefined> {
  return await webhookConfigRow(deps.db, accountId);
}

export async function findWebhookConfig(deps: Deps, accountId: string): Promise<WebhookConfig | undefined> {
  const r = await row(deps, accountId);
  return r && toConfig(r);
}

/** The signing secret in clear, for signing one attempt; never logged, never returned by a read. */
export async function signingSecret(deps: Deps, accountId: string): Promise<string | undefined> {
  const r = await row(deps, accountId);
  return r && deps.secret.decrypt(r.secret_sealed);
}

/** `whsec_` + 32 base64url characters (docs/design.md section 2), from the injected random source. */
function newSecret(deps: Deps): string {
  return 'whsec_' + Buffer.from(deps.ids.hex(24), 'hex').toString('base64url');
}

/** A new signing secret, in clear (shown once) and as stored: sealed under the server secret, and its prefix. */
export function newSealedSecret(deps: Deps): { secret: string; sealed: string; prefix: string } {
  const secret = newSecret(deps);
  return { secret, sealed: deps.secret.encrypt(secret), prefix: secret.slice(0, SECRET_PREFIX_LENGTH) };
}

export interface WebhookInput {
  url: string;
  enabled?: boolean;
  deliver3dsCode?: boolean;
}

/** PUT: the first call creates the config and returns its one-time secret; later calls update and return none. */
export async function putWebhookConfig(
  deps: Deps,
  accountId: string,
  input: WebhookInput,
  nowMs: number,
): Promise<{ config: WebhookConfig; secret?: string }> {
  assertInTransaction(deps.db, 'putWebhookConfig');
  const existing = await row(deps, accountId);
  if (existing) {
    await updateWebhookConfig(
      deps.db,
      accountId,
      input.url,
      Number(input.enabled ?? existing.enabled === 1),
      Number(input.deliver3dsCode ?? existing.deliver_3ds_code === 1),
      nowMs,
    );
    return { config: (await findWebhookConfig(deps, accountId))! };
  }
  const secret = newSecret(deps);
  await insertWebhookConfig(
    deps.db,
    {
      account_id: accountId,
      url: input.url,
      enabled: Number(input.enabled ?? true),
      deliver_3ds_code: Number(input.deliver3dsCode ?? false),
      secret_sealed: deps.secret.encrypt(secret),
      secret_prefix: secret.slice(0, SECRET_PREFIX_LENGTH),
    },
    nowMs,
  );
  return { config: (await findWebhookConfig(deps, accountId))!, secret };
}

/** A new secret replaces the old one at once: the next attempt is signed with it. */
export async function rotateWebhookSecret(
  deps: Deps,
  accountId: string,
  nowMs: number,
): Promise<{ config: WebhookConfig; secret: string }> {
  assertInTransaction(deps.db, 'rotateWebhookSecret');
  if (!(await row(deps, accountId))) throw new DomainError('WEBHOOK_NOT_CONFIGURED');
  const secret = newSecret(deps);
  await updateWebhookSecret(
    deps.db,
    accountId,
    deps.secret.encrypt(secret),
    secret.slice(0, SECRET_PREFIX_LENGTH),
    nowMs,
  );
  return { config: (await findWebhookConfig(deps, accountId))!, secret };
}
