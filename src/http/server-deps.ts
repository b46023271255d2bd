import type { Config } from '../config.js';
import type { Deps, Transactions } from '../domain/kernel/deps.js';
import type { Deployment } from '../domain/kernel/deployment.js';
import type { RequestLog } from '../request-log/log.js';
import type { ClientAddresses } from './client-address.js';
import type { ConnectionGuard } from './connection-guard.js';
import type { FailureThrottle } from './failure-throttle.js';
import type { RateLimits } from './rate-limits.js';
import type { TenantHoldings } from './tenant-holdings.js';

/**
 * What the HTTP layer is given: the domain's members (domain/kernel/deps.ts, each marked shared, per instance or
 * constant) and the server's own, marked the same way. The wiring (src/wiring.ts) builds them all, once per server.
 */
export interface ServerDeps extends Deps {
  /** As the domain's, its work given these deps whose `db` is the transaction. */
  transactions: Transactions<ServerDeps>;
  /** Constant: the whole configuration (flags and environment), frozen. */
  config: Config;
  /** Per instance: this process's id (http/instance.ts), in /healthz, its log lines and its metrics. */
  instance: string;
  /** Per instance: the requests this process has answered and not yet written to the request log (shared). */
  requestLog: RequestLog;
  /** Per instance: each tenant's rate budget, its token bucket on the wall clock, and the 429s it has held. */
  rateLimits: RateLimits;
  /** Per instance: what each tenant holds open in this process (requests in flight, connections). */
  tenantHoldings: TenantHoldings;
  /**
   * Per instance: the live instances on the database as this one counts them (each says so in a shared table), and
   * this instance's share of a tenant budget.
   */
  deployment: Deployment;
  /** Per instance, hosted mode only: the connections this process holds, anonymous ones bounded per client. */
  connectionGuard: ConnectionGuard | undefined;
  /** Constant: the proxies `--trust-proxy` names, and the client of a request (every per-client bound asks it). */
  clientAddresses: ClientAddresses;
  /** Per instance: failed operator tokens by client address, shared by the operator API and the console's sign-in. */
  operatorThrottle: FailureThrottle;
  /** Per instance: failed API keys at the console's sign-in by client address (a partner's typo never locks out the operator). */
  keySignInThrottle: FailureThrottle;
}
