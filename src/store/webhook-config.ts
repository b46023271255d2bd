import type { Db } from './seam.js';

// SQL of each account's webhook endpoint. The signing secret is stored sealed (encrypted under the server secret).

export interface WebhookConfigRow {
  account_id: string;
  url: string;
  enabled: number;
  deliver_3ds_code: number;
  secret_sealed: string;
  secret_prefix: string;
}

export async function webhookConfigRow(db: Db, accountId: string): Promise<WebhookConfigRow | undefined> {
  return (await db.get('SELECT * FROM webhook_configs WHERE account_id = ?', [accountId])) as
    WebhookConfigRow | undefined;
}

export async function updateWebhookConfig(
  db: Db,
  accountId: string,
  url: string,
  enabled: number,
  deliver3dsCode: number,
  nowMs: number,
): Promise<void> {
  await db.run(
    'UPDATE webhook_configs SET url = ?, enabled = ?, deliver_3ds_code = ?, updated_at_ms = ? WHERE account_id = ?',
    [url, enabled, deliver3dsCode, nowMs, accountId],
  );
}

export async function insertWebhookConfig(db: Db, r: WebhookConfigRow, nowMs: number): Promise<void> {
  await db.run(
    `INSERT INTO webhook_configs (account_id, url, enabled, deliver_3ds_code, secret_sealed, secret_prefix,
       created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [r.account_id, r.url, r.enabled, r.deliver_3ds_code, r.secret_sealed, r.secret_prefix, nowMs, nowMs],
  );
}

export async function updateWebhookSecret(
  db: Db,
  accountId: string,
  sealed: string,
  prefix: string,
  nowMs: number,
): Promise<void> {
  await db.run(
    'UPDATE webhook_configs SET secret_sealed = ?, secret_prefix = ?, updated_at_ms = ? WHERE account_id = ?',
    [sealed, prefix, nowMs, accountId],
  );
}

/** Removes the endpoint; answers whether there was one. */
export async function deleteWebhookConfig(db: Db, accountId: string): Promise<boolean> {
  return (await db.run('DELETE FROM webhook_configs WHERE account_id = ?', [accountId])) === 1;
}
