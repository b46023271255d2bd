import type { Migration } from './index.js';

// What a request or a timer looks up costs what it finds, not what waits beside it (docs/hosted.md, "A fair clock").
// - Jobs are looked up within their account by kind and reference (an authorisation's expiry when it is cleared, a
//   traffic run's messages when it stops): each such delete read every job of the account, 1.4 s of a day of traffic's
//   10 s. Due jobs are found per account (jobs_account_due), each at its own clock, so the global index on due_at_ms
//   served no query and cost every insert and delete.
// - A child sandbox's rows are deleted in slices, a table at a time by account: the two tables that had no index on
//   their account were read whole for each slice.
// - An authorisation's daily spend is a running total per card and UTC day of the account clock, kept by triggers on
//   transactions (every insert, every change of status or amount), so it is exact by construction and costs one read;
//   the sum over the card's PENDING and CLEARED spends read its whole history for each authorisation. Built here from
//   the rows a release wrote. Transactions are deleted only with their account (a reset, a purge), which delete these
//   rows too.
export const dueJobsAndDailySpend: Migration = {
  version: 65,
  name: 'due jobs and daily spend',
  sql: `
CREATE INDEX jobs_account_kind_ref ON jobs(account_id, kind, ref);
DROP INDEX jobs_due;
CREATE INDEX topups_account ON topups(account_id);
CREATE INDEX readiness_deliveries_account ON readiness_deliveries(account_id);

CREATE TABLE card_day_spend (
  account_id TEXT NOT NULL,
  card_id TEXT NOT NULL,
  day_start_ms INTEGER NOT NULL,
  spent_micros INTEGER NOT NULL,
  PRIMARY KEY (account_id, card_id, day_start_ms)
);

INSERT INTO card_day_spend (account_id, card_id, day_start_ms, spent_micros)
  SELECT account_id, card_id, created_at_ms - created_at_ms % 86400000, SUM(bill_amount_micros)
    FROM transactions WHERE kind = 'SPEND' AND status IN ('PENDING', 'CLEARED')
    GROUP BY account_id, card_id, created_at_ms - created_at_ms % 86400000;

CREATE TRIGGER card_day_spend_insert AFTER INSERT ON transactions
  WHEN NEW.kind = 'SPEND' AND NEW.status IN ('PENDING', 'CLEARED') AND NEW.bill_amount_micros <> 0
BEGIN
  INSERT INTO card_day_spend (account_id, card_id, day_start_ms, spent_micros)
    VALUES (NEW.account_id, NEW.card_id, NEW.created_at_ms - NEW.created_at_ms % 86400000, NEW.bill_amount_micros)
    ON CONFLICT (account_id, card_id, day_start_ms) DO UPDATE SET spent_micros = spent_micros + excluded.spent_micros;
END;

CREATE TRIGGER card_day_spend_update AFTER UPDATE OF status, bill_amount_micros ON transactions
  WHEN NEW.kind = 'SPEND'
    AND (CASE WHEN NEW.status IN ('PENDING', 'CLEARED') THEN NEW.bill_amount_micros ELSE 0 END)
     <> (CASE WHEN OLD.status IN ('PENDING', 'CLEARED') THEN OLD.bill_amount_micros ELSE 0 END)
BEGIN
  INSERT INTO card_day_spend (account_id, card_id, day_start_ms, spent_micros)
    VALUES (NEW.account_id, NEW.card_id, NEW.created_at_ms - NEW.created_at_ms % 86400000,
      (CASE WHEN NEW.status IN ('PENDING', 'CLEARED') THEN NEW.bill_amount_micros ELSE 0 END)
      - (CASE WHEN OLD.status IN ('PENDING', 'CLEARED') THEN OLD.bill_amount_micros ELSE 0 END))
    ON CONFLICT (account_id, card_id, day_start_ms) DO UPDATE SET spent_micros = spent_micros + excluded.spent_micros;
END;
`,
};
