// A claim held under a lease (an idempotency key in flight, a webhook attempt or a readiness delivery on the wire)
// stays its holder's only while the holder renews it: every third of its length, so two renewals can fail before
// another instance may take it.

/**
 * Calls `renew` every third of `leaseMs` until the answered function is called. A renewal that fails (the database
 * briefly lost) goes to `failed` and is tried again at the next. The timer keeps no process alive.
 */
export function keepRenewing(
  leaseMs: number,
  renew: () => Promise<unknown>,
  failed: (err: unknown) => void,
): () => void {
  const timer = setInterval(() => void renew().catch(failed), Math.ceil(leaseMs / 3));
  timer.unref();
  return () => clearInterval(timer);
}
