/**
 * How a held request's wait ended: it goes on (`released`, `elapsed`), or it must not (`deleted`, `gone`, or
 * `stopping`: its instance is stopping, and a hold only a release ends would keep it past its drain).
 */
export type HoldEnd = 'released' | 'elapsed' | 'deleted' | 'gone' | 'stopping';

/** Registers `onGone` to run once the request's client has gone away; returns its unregistration. */
export type WatchClient = (onGone: () => void) => () => void;

export interface HoldOptions {
  /** A latency: the wait ends by itself once the wall clock reads this (else only a release ends it). */
  untilWallMs?: number;
  /** The client of the request: once it has gone, nobody waits for the answer, and the request is abandoned. */
  watchClient?: WatchClient;
}

interface Held {
  end: (how: HoldEnd) => void;
  /** A latency (ends by itself), not a hold. */
  latency: boolean;
}

/**
 * The requests an injected fault holds in memory, per account (sandbox/v1/faults: `hold: true` until released,
 * `latencyMs` until the wall clock has moved that far). A latency is the network's, so it runs on the wall clock
 * whatever the account clock does (frozen or advanced); a hold is the test's, so only a release ends it
 * (`faults/release`, `faults/clear` or `reset`, each of which releases every held request of the account, latencies
 * included). A request whose client has gone is abandoned at once, and an account deleted meanwhile (a child
 * sandbox) ends its requests' waits as `deleted`.
 */
export class HeldRequests {
  private readonly held = new Map<string, Set<Held>>();
  private stopped = false;

  /** `wallClock`: the wall clock latencies are measured on (tests move a fake one; timers re-read it). */
  constructor(private readonly wallClock: () => number) {}

  /** Holds a request of the account until its wait ends; resolves how it ended. */
  hold(accountId: string, opts: HoldOptions = {}): Promise<HoldEnd> {
    if (this.stopped && opts.untilWallMs === undefined) return Promise.resolve('stopping');
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let unwatch: (() => void) | undefined;
      const entry: Held = {
        end: (how) => {
          const set = this.held.get(accountId);
          if (!set?.delete(entry)) return;
          if (set.size === 0) this.held.delete(accountId);
          clearTimeout(timer);
          unwatch?.();
          resolve(how);
        },
        latency: opts.untilWallMs !== undefined,
      };
      let set = this.held.get(accountId);
      if (!set) this.held.set(accountId, (set = new Set()));
      set.add(entry);
      const { untilWallMs } = opts;
      if (untilWallMs !== undefined) {
        // Re-read on every firing: a test's fake wall clock moves by its own steps, not with the timer.
        const check = () => {
          const leftMs = untilWallMs - this.wallClock();
          if (leftMs <= 0) return entry.end('elapsed');
          // Unref'd: a held request keeps its connection open, not the process alive.
          timer = setTimeout(check, leftMs);
          timer.unref();
        };
        check();
      }
      if (opts.watchClient && set.has(entry)) unwatch = opts.watchClient(() => entry.end('gone'));
    });
  }

  /** Lets every request the account holds go on; answers how many there were. */
  release(accountId: string): number {
    return this.endAll(accountId, 'released');
  }

  /** The account was deleted: its held requests end without going on. */
  deleted(accountId: string): void {
    this.endAll(accountId, 'deleted');
  }

  /**
   * The instance is stopping: every hold ends now, and any later one at once, so the drain does not wait for a
   * release that may never come (a latency ends by itself, and is let run). Answers how many holds ended.
   */
  stop(): number {
    this.stopped = true;
    let ended = 0;
    for (const set of [...this.held.values()]) {
      for (const entry of [...set]) {
        if (entry.latency) continue;
        entry.end('stopping');
        ended++;
      }
    }
    return ended;
  }

  /** How many requests the account holds now. */
  heldCount(accountId: string): number {
    return this.held.get(accountId)?.size ?? 0;
  }

  private endAll(accountId: string, how: HoldEnd): number {
    const set = this.held.get(accountId);
    if (!set) return 0;
    const entries = [...set];
    for (const entry of entries) entry.end(how);
    return entries.length;
  }
}
