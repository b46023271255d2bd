// Types of noisy.mjs for the test that runs it (test/hosted/noisy-neighbour.test.ts).
export interface PhaseSummary {
  requests: number;
  p50: number;
  p99: number;
  max: number;
  statuses: Record<string, number>;
}

export interface NoisyOptions {
  baseUrl: string;
  adminToken: string;
  tenants?: number;
  requestsPerTenant?: number;
  intervalMs?: number;
  idle?: number;
  slowBodies?: number;
  floodParallel?: number;
  trickleMs?: number;
  waitForCutsMs?: number;
}

export interface NoisyResult {
  quiet: PhaseSummary;
  noisy: PhaseSummary;
  outcomes: Record<string, Record<string, number>>;
}

export function createTenants(baseUrl: string, adminToken: string, count: number): Promise<string[]>;
export function noisyNeighbour(opts: NoisyOptions): Promise<NoisyResult>;

export interface Sample {
  status: number;
  ms: number;
}

export interface Abusers {
  stop(waitForCutsMs: number): Promise<Record<string, Record<string, number>>>;
}

export function wellBehaved(baseUrl: string, keys: string[], requests: number, intervalMs: number): Promise<Sample[]>;
export function summary(samples: Sample[]): PhaseSummary;
export function startAbusers(
  baseUrl: string,
  keys: string[],
  opts: { idle: number; slowBodies: number; floodParallel: number; trickleMs: number },
): Promise<Abusers>;
