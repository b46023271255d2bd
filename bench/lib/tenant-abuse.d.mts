// Types of tenant-abuse.mjs for the test that runs it (test/hosted/noisy-neighbour.test.ts).
export interface TenantAbuseOptions {
  children?: number;
  latencyMs?: number;
  heldPerSecond?: number;
  floodParallel?: number;
  sessions?: number;
  bodyKiB?: number;
}

/** Per abuse, the answers by HTTP status (0: no answer). */
export type TenantAbuseOutcomes = Record<
  'heldByLatencyFault' | 'childFlood' | 'largeBodies' | 'consoleSignIns' | 'consoleOversizedForms',
  Record<string, number>
>;

export function startTenantAbuse(
  baseUrl: string,
  parentKey: string,
  options?: TenantAbuseOptions,
): Promise<{ children: number; stop(): Promise<TenantAbuseOutcomes> }>;
