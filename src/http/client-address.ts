import type { Context } from 'hono';

/**
 * The address of the connection a request came on; undefined for an in-process request (the console's own calls,
 * which it throttles by its browser's address instead).
 */
export function clientAddress(c: Context): string | undefined {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket ? (incoming.socket.remoteAddress ?? 'unknown') : undefined;
}
