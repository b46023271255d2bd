import { Ids } from '../domain/kernel/ids.js';

// Which server process answered: `GET /healthz`, every log line and the metrics name it, so an operator running
// several behind a load balancer can tell them apart. Made once per process at start, never stored: per instance.

/**
 * `inst_` and 12 random base62 characters (71 bits: two processes of one deployment never share one). From the
 * cryptographic source, never the deps' ids: a scenario's seeded random would give every process the same id.
 */
export function newInstanceId(): string {
  return 'inst_' + new Ids().base62(12);
}
