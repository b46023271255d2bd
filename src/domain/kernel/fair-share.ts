// The event loop's time, shared among tenants (docs/hosted.md, "A fair clock"). One thread serves every tenant, so
// work a request starts that can run long (a clock advance, a catch-up of an account's timers, a snapshot import or a
// child's deletion) runs in slices, and between two slices the loop takes whatever else is waiting: other tenants'
// requests first of all. A slice is a few milliseconds of synchronous work; before the next, the work waits for its
// tenant's turn. Turns go round the tenants with work waiting, one slice per turn of the event loop, so a tenant's
// share does not grow with the accounts, advances or imports it runs at once: twelve children advancing together get
// the slices one account would. A tenant alone gets every turn, and so runs at nearly the full speed of the thread.

/** How long one slice runs before the loop takes other work (a measured duration, never a timer). */
export const SLICE_MS = 4;

/**
 * How much work a writing slice may do before it commits, so that its work and its commit together stay within
 * SLICE_MS: a commit writes every page the slice changed to the WAL, which grows with the work and with the machine's
 * load (a 4 ms slice of a snapshot's rows took 15 to 40 ms with its commit). Learnt from the slices before: shrunk in
 * proportion when one overran, grown back a quarter at a time.
 */
export class SliceBudget {
  private workMs = SLICE_MS;

  /** The work this slice may do, in ms. */
  get ms(): number {
    return this.workMs;
  }

  /**
   * Runs `slice` (which works for `ms` then commits: one awaited transaction) and learns from how long it took in all.
   * On the SQLite store a slice's statements complete at once and its awaits are microtasks, so the time measured is
   * the slice's own (no other work of the loop runs inside it); a slice that awaits anything else (the network) would
   * be charged for the wait.
   */
  async run<T>(slice: (workMs: number) => Promise<T>): Promise<T> {
    const startMs = performance.now();
    const result = await slice(this.workMs);
    const tookMs = performance.now() - startMs;
    this.workMs =
      tookMs > SLICE_MS
        ? Math.max(SLICE_MS / 8, (this.workMs * SLICE_MS) / tookMs)
        : Math.min(SLICE_MS, this.workMs * 1.25);
    return result;
  }
}

/** The turns of the event loop, given to tenants with work waiting, in rotation. */
export class FairShare {
  /** Waiting work by tenant, the tenant whose turn comes next first (a Map keeps the order tenants were put in). */
  private readonly waiting = new Map<string, (() => void)[]>();
  private pumping = false;

  /** Resolves when `tenantId` may run its next slice: after the loop has taken other work, in the tenant's turn. */
  turn(tenantId: string): Promise<void> {
    return new Promise((resolve) => {
      const queue = this.waiting.get(tenantId);
      if (queue) queue.push(resolve);
      else this.waiting.set(tenantId, [resolve]);
      if (!this.pumping) {
        this.pumping = true;
        setImmediate(() => this.next());
      }
    });
  }

  /** Tenants with work waiting for a turn now. */
  get tenantsWaiting(): number {
    return this.waiting.size;
  }

  /**
   * Gives one turn: the next tenant's oldest waiting work runs (its continuation, right after this callback), and the
   * tenant goes to the back of the rotation. The next turn is given on a later turn of the loop (setImmediate from
   * inside setImmediate), after the loop has polled for I/O: another tenant's request is read and answered between.
   */
  private next(): void {
    const first = this.waiting.entries().next();
    if (first.done) {
      this.pumping = false;
      return;
    }
    const [tenantId, queue] = first.value;
    const resolve = queue.shift()!;
    this.waiting.delete(tenantId);
    if (queue.length > 0) this.waiting.set(tenantId, queue);
    resolve();
    setImmediate(() => this.next());
  }
}

/**
 * Work run one at a time per key, in the order it was asked (an account's clock advances, a tenant's snapshot imports):
 * the second waits for the first to end, whatever became of it.
 */
export class OneAtATime {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const result = before.then(work, work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Whether work of this key runs or waits. */
  has(key: string): boolean {
    return this.tails.has(key);
  }
}
