import { core } from './001-core.js';
import { idempotency } from './010-idempotency.js';
import { webhooks } from './020-webhooks.js';
import { simulation } from './030-simulation.js';
import { chainTenantTxId } from './031-chain-tenant-txid.js';
import { traffic } from './032-traffic.js';
import { faultHold } from './038-fault-hold.js';
import { developerTools } from './050-developer-tools.js';
import { requestLogTenant } from './051-request-log-tenant.js';
import { requestLogFaultHintSource } from './052-request-log-fault-hint-source.js';
import { childDeliveries } from './058-child-deliveries.js';
import { readiness } from './060-readiness.js';
import { readinessLedger } from './061-readiness-ledger.js';
import { readinessEnd } from './062-readiness-end.js';
import { idempotencyFieldDigests } from './063-idempotency-field-digests.js';
import { readinessThrottleGone } from './064-readiness-throttle-gone.js';
import { dueJobsAndDailySpend } from './065-due-jobs-and-daily-spend.js';
import { transferReason } from './066-transfer-reason.js';
import { idempotencyLease, idempotencyLeasePostgres } from './067-idempotency-lease.js';
import { heldRequests, heldRequestsPostgres } from './069-held-requests.js';
import { instances, instancesPostgres } from './070-instances.js';
import { readinessDeliveryClaims, readinessDeliveryClaimsPostgres } from './071-readiness-delivery-claims.js';
import { jobClaims, jobClaimsPostgres } from './068-job-claims.js';

import { postgresBaseline } from './postgres-065-baseline.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

// Versions up to 61 were reserved by area (1-9 core, 10-19 idempotency, 20-29 webhooks, 30-39 simulation, 40-49
// operations, 50-59 developer tools, 60-69 readiness). A new migration takes the number after the last one, whatever
// its area, so that it comes after everything a released database already holds.
export const migrations: Migration[] = [
  core,
  idempotency,
  webhooks,
  simulation,
  chainTenantTxId,
  traffic,
  faultHold,
  developerTools,
  requestLogTenant,
  requestLogFaultHintSource,
  childDeliveries,
  readiness,
  readinessLedger,
  readinessEnd,
  idempotencyFieldDigests,
  readinessThrottleGone,
  dueJobsAndDailySpend,
  transferReason,
  idempotencyLease,
  heldRequests,
  instances,
  jobClaims,
  readinessDeliveryClaims,
].sort((a, b) => a.version - b.version);

/**
 * PostgreSQL's migrations, numbered as SQLite's: its first is the baseline, the schema SQLite's migrations reach at
 * the same number (postgres-065-baseline.ts); each later migration gives its text for both stores (the same text, or
 * one per store where their types are spelt differently, as 067's).
 */
export const postgresMigrations: Migration[] = [
  postgresBaseline,
  transferReason,
  idempotencyLeasePostgres,
  jobClaimsPostgres,
  heldRequestsPostgres,
  instancesPostgres,
  readinessDeliveryClaimsPostgres,
];
