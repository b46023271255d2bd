import { sql, type Db } from './db.js';

// SQL of each account's webhook endpoint. The signing secret is stored sealed (encrypted under the server secret).

export interface WebhookConfigRow {
  account_id: string;
  url: string;
  enabled: number;
  deliver_3ds_code: number;
  secret_sealed: string;
  secret_prefix: string;
}

export function webhookConfigRow(db: Db, accountId: string): WebhookConfigRow | undefined {
  return sql(db, 'SELECT * FROM webhook_configs WHERE account_id = ?').get(accountId) as WebhookConfigRow | undefined;
}

export function updateWebhookConfig(
  db: Db,
  accountId: string,
  url: string,
  enabled: number,
  deliver3dsCode: number,
  nowMs: number,
): void {
  sql(
    db,
    'UPDATE webhook_configs SET url = ?, enabled = ?, deliver_3ds_code = ?, updated_at_ms = ? WHERE account_id = ?',
  ).run(url, enabled, deliver3dsCode, nowMs, accountId);
}

export function insertWebhookConfig(db: Db, r: WebhookConfigRow, nowMs: number): void {
  sql(
    db,
    `INSERT INTO webhook_configs (account_id, url, enabled, deliver_3ds_code, secret_sealed, secret_prefix,
       created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(r.account_id, r.url, r.enabled, r.deliver_3ds_code, r.secret_sealed, r.secret_prefix, nowMs, nowMs);
}

export function updateWebhookSecret(db: Db, accountId: string, sealed: string, prefix: string, nowMs: number): void {
  sql(
    db,
    'UPDATE webhook_configs SET secret_sealed = ?, secret_prefix = ?, updated_at_ms = ? WHERE account_id = ?',
  ).run(sealed, prefix, nowMs, accountId);
}

/** Removes the endpoint; answers whether there was one. */
export function deleteWebhookConfig(db: Db, accountId: string): boolean {
  return sql(db, 'DELETE FROM webhook_configs WHERE account_id = ?').run(accountId).changes === 1;
}
