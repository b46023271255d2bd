// The event loop's time, shared among tenants (docs/hosted.md, "A fair clock"). One thread serves every tenant, so
// work a request starts that can run long (a clock advance, a catch-up of an account's timers, a snapshot import or a
// child's deletion) runs in slices, and between two slices the loop takes whatever else is waiting: other tenants'
// requests first of all. A slice is a few milliseconds of synchronous work; before the next, the work waits for its
// tenant's turn. Turns go round the tenants with work waiting, one slice per turn of the event loop, so a tenant's
// share does not grow with the accounts, advances or imports it runs at once: twelve children advancing together get
// the slices one account would. A tenant alone gets every turn, and so runs at nearly the full speed of the thread.

/** How long one slice runs before the loop takes other work (a measured duration, never a timer). */
export const SLICE_MS = 4;

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
