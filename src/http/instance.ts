import { randomBytes } from 'node:crypto';

// Which server process answered: `GET /healthz`, every log line and the metrics name it, so an operator running
// several behind a load balancer can tell them apart. Made once per process at start, never stored: per instance.

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `inst_` and 12 random base62 characters (71 bits: two processes of one deployment never share one). */
export function newInstanceId(): string {
  let id = 'inst_';
  for (const byte of randomBytes(12)) id += ALPHABET[byte % 62];
  return id;
}
