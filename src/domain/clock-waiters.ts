interface Waiter {
  atMs: number;
  release: (reached: boolean) => void;
  timer?: NodeJS.Timeout;
}

/**
 * What waits on an account clock in memory (a request a latency fault holds): each waiter is released once its
 * account's "now" reaches its instant. A frozen clock moves only when advanced, so its waiters stay held until the
 * advance (which calls `wake`); a running clock moves with wall time, so a wall timer is set for the moment it gets
 * there. Whatever moves or switches a clock calls `wake` for the account afterwards.
 */
export class ClockWaiters {
  private readonly waiting = new Map<string, Set<Waiter>>();

  /** `readClock`: an account's "now" and whether its clock runs, undefined once the account is gone (clock.ts). */
  constructor(private readonly readClock: (accountId: string) => { nowMs: number; running: boolean } | undefined) {}

  /** Resolves true once the account's clock reads `atMs` or later; false once the account no longer exists. */
  until(accountId: string, atMs: number): Promise<boolean> {
    return new Promise((release) => {
      const waiter: Waiter = { atMs, release };
      let set = this.waiting.get(accountId);
      if (!set) this.waiting.set(accountId, (set = new Set()));
      set.add(waiter);
      this.check(accountId, waiter);
    });
  }

  /** The account's clock moved or switched mode: releases the waiters now due, and re-times the others. */
  wake(accountId: string): void {
    for (const waiter of this.waiting.get(accountId) ?? []) this.check(accountId, waiter);
  }

  /** How many waiters the account has held (none released yet). */
  heldCount(accountId: string): number {
    return this.waiting.get(accountId)?.size ?? 0;
  }

  private check(accountId: string, waiter: Waiter): void {
    clearTimeout(waiter.timer);
    waiter.timer = undefined;
    const clock = this.readClock(accountId);
    if (!clock || clock.nowMs >= waiter.atMs) {
      const set = this.waiting.get(accountId)!;
      set.delete(waiter);
      if (set.size === 0) this.waiting.delete(accountId);
      waiter.release(clock !== undefined);
      return;
    }
    // Unref'd: a held request keeps its connection open, not the process alive.
    if (clock.running) {
      waiter.timer = setTimeout(() => this.check(accountId, waiter), waiter.atMs - clock.nowMs);
      waiter.timer.unref();
    }
  }
}
