import { findAccount } from '../domain/accounts/accounts.js';
import type { Deps } from '../domain/kernel/deps.js';
import { tenantOf } from '../domain/accounts/tenants.js';
import {
  insertRequestLogRows,
  tenantRequestLogBytes,
  trimRequestLog,
  trimTenantRequestLog,
  type NewRequestLogRow,
} from '../store/request-log.js';
import type { CapturedRequest } from './captured-request.js';
import { PendingRecords, type Pending, type PutResult } from './pending-records.js';
import { MAX_BODY_CHARS, toRow } from './rows.js';

// The request log (docs/developer-tools.md): what an integration sent and got back, per account, newest first.
// Off the request's critical path: a request only hands over flat strings it already holds (header names and
// values, body text), which are encoded at once into the account's circle of its newest 1,000 pending records, bytes
// outside the JS heap (pending-records.ts). At most once a second, the pending records are decoded, redacted,
// serialised and written, in transactions of a few milliseconds each (one tenant's rows each) with the event loop free
// in between, each trimming its accounts to 1,000; a record pushed out of the circle before that is never written (the trim would
// delete it at once). So the writing costs at most 1,000 records per account and batch whatever the load, and after a
// batch in which an account pushed records out (more than 1,000 requests since the last), the next is written
// BUSY_FLUSH_INTERVAL_MS later instead: at 3,000 card/list a second, writing 1,000 records every second was a third
// of the log's cost (bench: docs/developer-tools.md).
// A crash loses the records not yet written (at most FLUSH_INTERVAL_MS of requests, BUSY_FLUSH_INTERVAL_MS under
// that load), never anything of the ledger, which commits on its own before the answer is sent.

/** @internal exported, as the two below, for the tests that drive the batches (test/request-log/batches.test.ts) */
export const KEEP_PER_ACCOUNT = 1000;
/** Pending records are written at most this long after their request (what a crash may lose). @internal */
export const FLUSH_INTERVAL_MS = 1000;
/**
 * After a batch in which an account sent more than KEEP_PER_ACCOUNT requests, the next is written this long after.
 * @internal
 */
export const BUSY_FLUSH_INTERVAL_MS = 4000;
/** All accounts together: past this many pending records they are written at once (bounds the memory). */
const MAX_PENDING = 20_000;
/** All accounts' buffers together: past this they are written at once and let go. */
const MAX_BYTES = 64 * 1024 * 1024;
/** One account's buffer: 1,000 records of 16 KB (a 3.6 KB card/list answer makes a record of about 4 KB). */
const MAX_ACCOUNT_BYTES = 16 * 1024 * 1024;
/** The timer's batch is written in slices of about this long, with the event loop free in between. */
const SLICE_MS = 4;
/** At most this many records per slice's transaction. */
const SLICE_ROWS = 500;

const isLarge = (c: CapturedRequest) =>
  (c.requestBody?.length ?? 0) > MAX_BODY_CHARS || (c.responseBody?.length ?? 0) > MAX_BODY_CHARS;

/** One per server (deps.requestLog): per account, the requests not yet written. */
export class RequestLog {
  /** Kept from one batch to the next, so a busy account reuses the same warm bytes (pending-records.ts). */
  private pending = new Map<string, PendingRecords>();
  private pendingCount = 0;
  /** Bytes the accounts' buffers hold together; past MAX_BYTES the batch is written and the buffers let go. */
  private heldBytes = 0;
  /** Whether an account pushed a record out since the last batch. */
  private overflowed = false;
  /** The wait before the next batch: FLUSH_INTERVAL_MS, or BUSY_FLUSH_INTERVAL_MS after a batch that overflowed. */
  private interval = FLUSH_INTERVAL_MS;
  private timer: NodeJS.Timeout | undefined;
  /** Records taken from the buffers and not yet written, oldest first (a batch written in slices). */
  private backlog: Taken[] = [];
  private sliceScheduled = false;
  /** The write under way (one at a time), resolved once it has ended. */
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly deps: Deps) {}

  async add(captured: CapturedRequest): Promise<void> {
    let result = this.put(captured, false);
    if (result === 'full') {
      await this.flush();
      result = this.put(captured, true);
    }
    if (result === 'replaced') this.overflowed = true;
    else this.pendingCount++;
    if (this.pendingCount >= MAX_PENDING || this.heldBytes > MAX_BYTES) await this.flush();
    else if (!this.timer) {
      // writeNow catches what a write throws: the slices never reject.
      this.timer = setTimeout(() => void this.flushInSlices(), this.interval);
      this.timer.unref();
    }
  }

  /** Adds the record to its account's pending records; `orRow`: when they have no room, as a row made now. */
  private put(captured: CapturedRequest, orRow: boolean): PutResult {
    let records = this.pending.get(captured.accountId);
    if (!records) {
      records = new PendingRecords(KEEP_PER_ACCOUNT, MAX_ACCOUNT_BYTES);
      this.pending.set(captured.accountId, records);
    }
    const before = records.bytes;
    // A body past the cap is redacted and cut now, so the buffer never holds megabytes per record.
    const row = () => toRow(captured, this.deps.redactor);
    let result = isLarge(captured) ? records.putRow(row()) : records.put(captured);
    if (result === 'full' && orRow) result = records.putRow(row());
    this.heldBytes += records.bytes - before;
    return result;
  }

  /** Writes every pending record now (reads call this first, so they see every request answered before them). */
  async flush(): Promise<void> {
    this.take();
    await this.write(Infinity);
  }

  /**
   * The timer's batch: taken now, written in slices of at most SLICE_MS with the event loop free in between. Written
   * whole, a batch of a few thousand records (a flooding tenant's 429s, each redacted and serialised) held every
   * tenant's requests once a second: the noisy-neighbour run's p99 (bench:hosted).
   */
  private async flushInSlices(): Promise<void> {
    this.take();
    await this.writeSlice();
  }

  private async writeSlice(): Promise<void> {
    await this.write(SLICE_MS);
    if (this.backlog.length > 0 && !this.sliceScheduled) {
      this.sliceScheduled = true;
      setImmediate(() => {
        this.sliceScheduled = false;
        void this.writeSlice();
      });
    }
  }

  /** Moves every pending record to the backlog, in order of arrival, and lets the buffers go as their use says. */
  private take(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pendingCount === 0) return;
    const taken: Taken[] = [];
    for (const [accountId, records] of this.pending) {
      if (records.size > 0) for (const p of records.take(accountId)) taken.push({ accountId, p, atMs: atMsOf(p) });
      // An account quiet since the last batch, or every account once the buffers hold too much, lets its buffer go.
      else this.pending.delete(accountId);
    }
    if (this.heldBytes > MAX_BYTES) this.pending = new Map();
    this.heldBytes = [...this.pending.values()].reduce((sum, r) => sum + r.bytes, 0);
    this.pendingCount = 0;
    this.interval = this.overflowed ? BUSY_FLUSH_INTERVAL_MS : FLUSH_INTERVAL_MS;
    this.overflowed = false;
    // In order of arrival across accounts, so that a tenant's oldest records (the lowest seqs) go first; a backlog
    // still being written holds older records than these.
    taken.sort((a, b) => a.atMs - b.atMs);
    for (const t of taken) this.backlog.push(t);
  }

  /**
   * Writes the backlog, one transaction per slice of at most SLICE_ROWS records, until `budgetMs` is spent (the time
   * it takes to make the rows counts: a record may carry 64 KiB of body to redact).
   */
  private write(budgetMs: number): Promise<void> {
    // One write at a time: a read's flush and the timer's slice would otherwise take the same backlog rows.
    const next = this.writing.then(() => this.writeNow(budgetMs));
    this.writing = next;
    return next;
  }

  private async writeNow(budgetMs: number): Promise<void> {
    const { logger, store } = this.deps;
    const started = performance.now();
    try {
      while (this.backlog.length > 0) {
        if (!store.open) {
          this.backlog = [];
          return;
        }
        const tenantOfAccount = new Map<string, string | undefined>();
        const rows: NewRequestLogRow[] = [];
        let n = 0;
        // Rows are made (decoded, redacted, serialised) until the slice is full or the time is spent, looked at
        // every 16 rows; a slice makes at least one.
        for (; n < this.backlog.length && n < SLICE_ROWS; n++) {
          if (n % 16 === 15 && performance.now() - started >= budgetMs) break;
          const { accountId, p } = this.backlog[n]!;
          if (!tenantOfAccount.has(accountId)) {
            const account = await findAccount(this.deps, accountId);
            tenantOfAccount.set(accountId, account && tenantOf(account));
          }
          const tenant = tenantOfAccount.get(accountId);
          // A record of an account deleted meanwhile (a child sandbox) is dropped, not written as an orphan.
          if (tenant === undefined) continue;
          rows.push({ ...('account_id' in p ? p : toRow(p, this.deps.redactor)), tenant_id: tenant });
        }
        this.backlog.splice(0, n);
        const budget = this.deps.config.tenant.requestLogBytes;
        // A transaction per tenant (its rows, its accounts' trims, its budget), never one of several tenants': every
        // transaction touches one tenant, so the schema distributes by tenant (docs/scaling.md). A slice mostly holds
        // one busy tenant's records, so this is seldom more than one transaction.
        const rowsOfTenant = new Map<string, NewRequestLogRow[]>();
        for (const row of rows) {
          const tenantRows = rowsOfTenant.get(row.tenant_id);
          if (tenantRows) tenantRows.push(row);
          else rowsOfTenant.set(row.tenant_id, [row]);
        }
        for (const [tenant, tenantRows] of rowsOfTenant) {
          await this.deps.transactions.run(async ({ db }) => {
            await insertRequestLogRows(db, tenantRows);
            for (const [accountId, tenantOfIt] of tenantOfAccount) {
              if (tenantOfIt === tenant) await trimRequestLog(db, accountId, KEEP_PER_ACCOUNT);
            }
            if ((await tenantRequestLogBytes(db, tenant)) > budget) {
              this.deps.meter.refused('request_log', await trimTenantRequestLog(db, tenant, budget));
            }
          });
        }
        if (performance.now() - started >= budgetMs) return;
      }
    } catch (err) {
      this.backlog = [];
      logger.error({ err }, 'request log batch not written');
    }
  }
}

interface Taken {
  accountId: string;
  p: Pending;
  atMs: number;
}

const atMsOf = (p: Pending): number => ('account_id' in p ? p.at_ms : p.atMs);

/** What the request log's functions are given: the domain's deps and the server's one request log. */
export interface RequestLogDeps extends Deps {
  requestLog: RequestLog;
}
