import { assertInTransaction, sql, type Db } from '../store/db.js';
import type { Deps } from './deps.js';

// Injected faults (sandbox/v1/faults): per account, matched by the full request path, first rule first,
// each applying to its next `count` matching requests.

export interface FaultRule {
  path: string;
  count: number;
  latencyMs: number;
  respond?: { httpStatus: number; code: number; message?: string };
  dropResponse: boolean;
}

interface FaultRow {
  id: number;
  path: string;
  remaining: number;
  latency_ms: number;
  respond_status: number | null;
  respond_code: number | null;
  respond_message: string | null;
  drop_response: number;
}

const toRule = (r: FaultRow): FaultRule => ({
  path: r.path,
  count: r.remaining,
  latencyMs: r.latency_ms,
  ...(r.respond_status !== null
    ? {
        respond: {
          httpStatus: r.respond_status,
          code: r.respond_code!,
          ...(r.respond_message ? { message: r.respond_message } : {}),
        },
      }
    : {}),
  dropResponse: r.drop_response === 1,
});

/**
 * Per database: false once a query saw the faults table empty, until the next `setFaults` (the only writer that
 * adds rows). Lets every request skip the faults query (bench: 2-4 µs) in the common case. Deletes only make it
 * pessimistic, a rolled-back `setFaults` too: then the next request queries again.
 */
const maybeArmed = new WeakMap<Db, boolean>();

/** Replaces the account's rules with `rules`. */
export function setFaults(db: Db, accountId: string, rules: FaultRule[]): void {
  assertInTransaction(db, 'setFaults');
  maybeArmed.delete(db);
  clearFaults(db, accountId);
  for (const r of rules) {
    sql(
      db,
      `INSERT INTO faults (account_id, path, remaining, latency_ms, respond_status, respond_code, respond_message, drop_response)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      accountId,
      r.path,
      r.count,
      r.latencyMs,
      r.respond?.httpStatus ?? null,
      r.respond?.code ?? null,
      r.respond?.message ?? null,
      r.dropResponse ? 1 : 0,
    );
  }
}

export function clearFaults(db: Db, accountId: string): void {
  sql(db, 'DELETE FROM faults WHERE account_id = ?').run(accountId);
}

/** Rules still armed, in matching order. */
export function listFaults(db: Db, accountId: string): FaultRule[] {
  return (
    sql(db, 'SELECT * FROM faults WHERE account_id = ? AND remaining > 0 ORDER BY id').all(accountId) as FaultRow[]
  ).map(toRule);
}

/** Whether any account has an armed rule (spent rules are deleted): lets every request skip the key lookup in the common case. */
export function anyArmedFault(db: Db): boolean {
  if (maybeArmed.get(db) === false) return false;
  const armed = sql(db, 'SELECT 1 FROM faults LIMIT 1').get() !== undefined;
  maybeArmed.set(db, armed);
  return armed;
}

/** The first armed rule for this path, counted down by one (atomically: two requests never take the same use). */
export function takeFault(db: Db, accountId: string, path: string): FaultRule | undefined {
  assertInTransaction(db, 'takeFault');
  const row = sql(
    db,
    `UPDATE faults SET remaining = remaining - 1 WHERE id =
       (SELECT id FROM faults WHERE account_id = ? AND path = ? AND remaining > 0 ORDER BY id LIMIT 1)
     RETURNING *`,
  ).get(accountId, path) as FaultRow | undefined;
  // A spent rule is deleted so the table stays empty when no fault is armed.
  if (row?.remaining === 0) sql(db, 'DELETE FROM faults WHERE id = ?').run(row.id);
  return row && toRule(row);
}

export function registerFaults(deps: Deps): void {
  deps.resets.push((db, accountId) => clearFaults(db, accountId));
}
