import type { Handlers } from '../http/router.js';
import type { ServerDeps } from '../http/server-deps.js';
import { chainHandlers } from './chain.js';
import { sandboxesHandlers } from './child-sandboxes.js';
import { snapshotHandlers } from './snapshot.js';
import { clockHandlers } from './clock.js';
import { eventsHandlers } from './events.js';
import { faultHandlers } from './faults.js';
import { inventoryHandlers } from './inventory.js';
import { readinessHandlers } from './readiness.js';
import { requestsHandlers } from './requests.js';
import { resetHandlers } from './reset.js';
import { threeDsHandlers } from './threeds.js';
import { trafficHandlers } from './traffic.js';
import { transactionHandlers } from './transactions.js';
import { walletSeedHandlers } from './wallet-seed.js';
import { webhookSandboxHandlers } from './webhook.js';

/** The simulation API's handlers by operation (contracts/index.json); app.ts gives them their pipeline. */
export function sandboxHandlers(deps: ServerDeps): Handlers {
  return {
    ...walletSeedHandlers(deps),
    ...clockHandlers(deps),
    ...inventoryHandlers(deps),
    ...resetHandlers(deps),
    ...eventsHandlers(deps),
    ...webhookSandboxHandlers(deps),
    ...transactionHandlers(deps),
    ...trafficHandlers(deps),
    ...chainHandlers(deps),
    ...threeDsHandlers(deps),
    ...faultHandlers(deps),
    ...sandboxesHandlers(deps),
    ...snapshotHandlers(deps),
    ...requestsHandlers(deps),
    ...readinessHandlers(deps),
  };
}
