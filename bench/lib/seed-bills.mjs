// Bulk-seeds card transactions straight into the database file, in one SQL transaction, with the dense
// sequence numbers bill/list pages by. The bench account's ledger is not touched: these rows only exist to be
// listed, so this database is for measuring, not for checking conservation.
import Database from 'better-sqlite3';

export function seedTransactions(dbPath, { accountId, cardId, count }) {
  const db = new Database(dbPath);
  db.pragma('busy_timeout = 10000');
  const { bin_id: binId } = db.prepare('SELECT bin_id FROM cards WHERE id = ?').get(cardId);
  const started = performance.now();
  const insert = db.prepare(
    `INSERT INTO transactions (id, account_id, card_id, bin_id, kind, status, bill_amount_micros,
       transaction_amount_micros, transaction_currency, cleared_micros, merchant_name, merchant_country, mcc_category,
       created_at_ms, settled_at_ms, acct_seq, card_seq, bin_seq)
     VALUES (?, ?, ?, ?, 'SPEND', 'CLEARED', ?, ?, 'USD', ?, 'BENCH MERCHANT', 'US', 'Retail', ?, ?, ?, ?, ?)`,
  );
  const counter = db.prepare(
    'INSERT INTO seq_counters (scope, value) VALUES (?, ?) ON CONFLICT (scope) DO UPDATE SET value = excluded.value',
  );
  const t0 = Date.UTC(2026, 0, 1);
  db.transaction(() => {
    for (let i = 1; i <= count; i++) {
      const amount = 1_000_000 + (i % 997) * 10_000;
      const at = t0 + i * 1000;
      insert.run(
        `txn_bench${String(i).padStart(19, '0')}`,
        accountId,
        cardId,
        binId,
        amount,
        amount,
        amount,
        at,
        at,
        i,
        i,
        i,
      );
    }
    counter.run(`txn:${accountId}`, count);
    counter.run(`txn-card:${cardId}`, count);
    counter.run(`txn-bin:${accountId}:${binId}`, count);
  })();
  const seedMs = performance.now() - started;
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return { seedMs };
}
