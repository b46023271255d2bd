import { registerCardTransactionJobs } from './reversals.js';
import { registerChain } from '../chain/chain.js';
import type { Deps, EventEnricher } from '../kernel/deps.js';
import { otpField } from './threeds.js';
import { registerTrafficJobs } from '../traffic/runs.js';

/** Wires the simulation modules' jobs into the domain. */
export function registerSimulation(deps: Deps): void {
  registerCardTransactionJobs(deps);
  registerChain(deps);
  registerTrafficJobs(deps);
}

/** The simulation's delivery-only event fields: the 3DS code. */
export const SIMULATION_EVENT_ENRICHERS: readonly EventEnricher[] = [otpField];
