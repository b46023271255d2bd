import { expect } from 'vitest';
import type { TestSandbox } from '../helpers/sandbox.js';

// Calls and types the readiness tests share: the sandbox on a real port (a dropped response is only seen over a
// socket), the run's routes, and the report's checks by id.

export interface Check {
  id: string;
  title: string;
  result: 'pass' | 'fail' | 'not_observed';
  evidence: string[];
  evidenceOmitted: number;
  advice: string | null;
  paired: string | null;
}

export interface Report {
  runId: string;
  status: 'running' | 'done';
  startedAt: string;
  endsAt: string;
  fullWindow: boolean;
  endedBy: 'window' | 'stop' | 'decided' | null;
  receiver: string | null;
  checks: Check[];
  deliveries: {
    deliveryId: string;
    check: string;
    eventId: string;
    attempts: { time: string; status: number | null; latencyMs: number; error: string | null }[];
  }[];
}

export async function startRun(sb: TestSandbox, key: string, body: Record<string, unknown> = {}): Promise<Report> {
  const res = await sb.post(key, '/sandbox/v1/readiness/run', body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Report;
}

export async function stopRun(sb: TestSandbox, key: string, runId: string): Promise<Report> {
  const res = await sb.post(key, '/sandbox/v1/readiness/stop', { runId });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Report;
}

export async function getRun(sb: TestSandbox, key: string, runId: string): Promise<Report> {
  const res = await sb.post(key, '/sandbox/v1/readiness/get', { runId });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Report;
}

/** `{checkId: result}` of a report. */
export const results = (report: Report) => Object.fromEntries(report.checks.map((c) => [c.id, c.result]));

export const check = (report: Report, id: string): Check => {
  const found = report.checks.find((c) => c.id === id);
  if (!found) throw new Error(`no check ${id} in ${JSON.stringify(report.checks.map((c) => c.id))}`);
  return found;
};

export const RECEIVER_CHECKS = [
  'receiver-accepts-signed',
  'receiver-rejects-bad-signature',
  'receiver-rejects-stale-timestamp',
  'receiver-rejects-tampered-body',
  'receiver-accepts-duplicate',
];

export const API_CHECKS = [
  'idempotency-key-on-writes',
  'retry-after-dropped-response',
  'retry-after-server-error',
  'waits-retry-after',
  'no-tight-loop-on-inventory',
];

export const LEDGER_CHECKS = ['ledger-agrees'];
