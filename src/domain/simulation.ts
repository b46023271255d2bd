import { registerCardTransactionJobs } from './card-transactions.js';
import { registerChain } from './chain.js';
import { registerThreeDs } from './threeds.js';
import type { Deps } from './deps.js';

/** Wires the simulation modules into the domain: their jobs and the 3DS code's delivery-time field. */
export function registerSimulation(deps: Deps): void {
  registerCardTransactionJobs(deps);
  registerChain(deps);
  registerThreeDs(deps);
}
