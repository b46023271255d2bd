import type { Deps } from './deps.js';
import { DomainError } from './errors.js';
import { assertInTransaction, sql } from '../store/db.js';

// The account's webhook endpoint (spec "Webhook configuration"). Plain functions over the store; the HTTP layer
// validates input first, so nothing here runs on bad input.

export interface WebhookConfig {
  accountId: string;
  url: string;
  enabled: boolean;
  deliver3dsCode: boolean;
  secretPrefix: string;
}

interface ConfigRow {
  account_id: string;
  url: string;
  enabled: number;
  deliver_3ds_code: number;
  secret_sealed: string;
  secret_prefix: string;
}

const SECRET_PREFIX_LENGTH = 14;

const toConfig = (r: ConfigRow): WebhookConfig => ({
  accountId: r.account_id,
  url: r.url,
  enabled: r.enabled === 1,
  deliver3dsCode: r.deliver_3ds_code === 1,
  secretPrefix: r.secret_prefix,
});

function row(deps: Deps, accountId: string): ConfigRow | undefined {
  return sql(deps.db, 'SELECT * FROM webhook_configs WHERE account_id = ?').get(accountId) as ConfigRow | undefined;
}

export function findWebhookConfig(deps: Deps, accountId: string): WebhookConfig | undefined {
  const r = row(deps, accountId);
  return r && toConfig(r);
}

/** The signing secret in clear, for signing one attempt; never logged, never returned by a read. */
export function signingSecret(deps: Deps, accountId: string): string | undefined {
  const r = row(deps, accountId);
  return r && deps.secret.decrypt(r.secret_sealed);
}

/** `whsec_` + 32 base64url characters (behaviour.md section 2), from the injected random source. */
function newSecret(deps: Deps): string {
  return 'whsec_' + Buffer.from(deps.ids.hex(24), 'hex').toString('base64url');
}

export interface WebhookInput {
  url: string;
  enabled?: boolean;
  deliver3dsCode?: boolean;
}

/** PUT: the first call creates the config and returns its one-time secret; later calls update and return none. */
export function putWebhookConfig(
  deps: Deps,
  accountId: string,
  input: WebhookInput,
  nowMs: number,
): { config: WebhookConfig; secret?: string } {
  assertInTransaction(deps.db, 'putWebhookConfig');
  const existing = row(deps, accountId);
  if (existing) {
    sql(
      deps.db,
      'UPDATE webhook_configs SET url = ?, enabled = ?, deliver_3ds_code = ?, updated_at_ms = ? WHERE account_id = ?',
    ).run(
      input.url,
      Number(input.enabled ?? existing.enabled === 1),
      Number(input.deliver3dsCode ?? existing.deliver_3ds_code === 1),
      nowMs,
      accountId,
    );
    return { config: findWebhookConfig(deps, accountId)! };
  }
  const secret = newSecret(deps);
  sql(
    deps.db,
    `INSERT INTO webhook_configs (account_id, url, enabled, deliver_3ds_code, secret_sealed, secret_prefix,
       created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    accountId,
    input.url,
    Number(input.enabled ?? true),
    Number(input.deliver3dsCode ?? false),
    deps.secret.encrypt(secret),
    secret.slice(0, SECRET_PREFIX_LENGTH),
    nowMs,
    nowMs,
  );
  return { config: findWebhookConfig(deps, accountId)!, secret };
}

/** A new secret replaces the old one at once: the next attempt is signed with it. */
export function rotateWebhookSecret(
  deps: Deps,
  accountId: string,
  nowMs: number,
): { config: WebhookConfig; secret: string } {
  assertInTransaction(deps.db, 'rotateWebhookSecret');
  if (!row(deps, accountId)) throw new DomainError('WEBHOOK_NOT_CONFIGURED');
  const secret = newSecret(deps);
  sql(
    deps.db,
    'UPDATE webhook_configs SET secret_sealed = ?, secret_prefix = ?, updated_at_ms = ? WHERE account_id = ?',
  ).run(deps.secret.encrypt(secret), secret.slice(0, SECRET_PREFIX_LENGTH), nowMs, accountId);
  return { config: findWebhookConfig(deps, accountId)!, secret };
}

/** Removes the endpoint (`removeWebhook` also cancels its pending deliveries). */
export function deleteWebhookConfig(deps: Deps, accountId: string): boolean {
  return sql(deps.db, 'DELETE FROM webhook_configs WHERE account_id = ?').run(accountId).changes === 1;
}
