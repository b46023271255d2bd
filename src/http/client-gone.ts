import type { Context } from 'hono';
import type { WatchClient } from '../domain/faults/held-requests.js';

// Whether the client of a request is still there to receive its answer. Served by Node, the answer's 'close' tells
// (it fires when the answer is finished, and when the connection goes first); in-process (`app.request()`), the
// request's abort signal does.

interface Outgoing {
  writableFinished: boolean;
  destroyed: boolean;
  once(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

/** Watches the request's client: `onGone` runs once it has gone away before its answer was sent. */
export function clientWatch(c: Context): WatchClient {
  const outgoing = (c.env as { outgoing?: Outgoing } | undefined)?.outgoing;
  if (outgoing && typeof outgoing.once === 'function') {
    return (onGone) => {
      if (outgoing.destroyed && !outgoing.writableFinished) {
        onGone();
        return () => {};
      }
      const onClose = () => {
        if (!outgoing.writableFinished) onGone();
      };
      outgoing.once('close', onClose);
      return () => void outgoing.off('close', onClose);
    };
  }
  return (onGone) => {
    const signal = c.req.raw.signal;
    if (signal.aborted) {
      onGone();
      return () => {};
    }
    signal.addEventListener('abort', onGone, { once: true });
    return () => signal.removeEventListener('abort', onGone);
  };
}
