// Waiting for work another process, thread or socket does on its own time (a server starting, a worker's checkpoint,
// a delivery on the wire). Tests wait on the condition, never for a duration, and the limit is generous: it only
// bounds a failing run, so a heavily loaded machine still passes. Account timers are not waited for: tests advance
// the account clock instead.

/** The limit of every wait: long enough for a machine with every core busy, short enough to fail a hung run. */
export const WAIT_LIMIT_MS = 60_000;

/**
 * Resolves with the first value `check` returns that is neither undefined nor false, polling every `everyMs`.
 * Rejects with `what` once `timeoutMs` has passed without it.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = WAIT_LIMIT_MS, everyMs = 10 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
