import { registerCardTransactionJobs } from './card-transactions.js';
import { registerChain } from './chain.js';
import { registerFaults } from './faults.js';
import { registerThreeDs } from './threeds.js';
import type { Deps } from './deps.js';

/** Wires the simulation modules into the domain: their jobs, reset hooks and extension points. */
export function registerSimulation(deps: Deps): void {
  registerCardTransactionJobs(deps);
  registerChain(deps);
  registerThreeDs(deps);
  registerFaults(deps);
}
