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
  /** Its row among the held requests every instance sees (shared-holds.ts): a release elsewhere deletes it. */
  id?: string;
}

interface Held {
  id: string | undefined;
  end: (how: HoldEnd) => void;
  /** A latency (ends by itself), not a hold. */
  latency: boolean;
}

/** The ids of the held requests whose rows are still there: what a release on another instance has not deleted. */
export type StillHeld = () => Promise<ReadonlySet<string>>;

/** How often an instance holding a request looks whether another instance released it (on the wall clock). */
const RELEASE_POLL_MS = 100;

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
  private polling: NodeJS.Timeout | undefined;
  private stopped = false;

  /**
   * @param wallClock the wall clock latencies are measured on (tests move a fake one; timers re-read it)
   * @param stillHeld while this process holds a request with a row, asked every RELEASE_POLL_MS: a held request whose
   *   row is gone was released by another instance (faults/release there), and goes on here
   */
  constructor(
    private readonly wallClock: () => number,
    private readonly stillHeld?: StillHeld,
  ) {}

  /** Holds a request of the account until its wait ends; resolves how it ended. */
  hold(accountId: string, opts: HoldOptions = {}): Promise<HoldEnd> {
    if (this.stopped && opts.untilWallMs === undefined) return Promise.resolve('stopping');
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let unwatch: (() => void) | undefined;
      const entry: Held = {
        id: opts.id,
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
      if (entry.id !== undefined) this.pollReleases();
    });
  }

  /** Looks, while a request with a row is held, whether its row is gone; ends those whose row is. */
  private pollReleases(): void {
    if (this.polling || !this.stillHeld) return;
    const look = async (): Promise<void> => {
      // Judged: only the requests held before the look began (a row is written before its request is held here).
      const judged = [...this.held.values()].flatMap((set) => [...set]).filter((e) => e.id !== undefined);
      if (judged.length === 0) {
        this.polling = undefined;
        return;
      }
      try {
        const rows = await this.stillHeld!();
        for (const entry of judged) if (!rows.has(entry.id!)) entry.end('released');
      } catch {
        // The database out of reach: the held requests wait, and the next look asks again.
      }
      this.polling = setTimeout(() => void look(), RELEASE_POLL_MS);
      this.polling.unref();
    };
    this.polling = setTimeout(() => void look(), RELEASE_POLL_MS);
    this.polling.unref();
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

  /** How many requests the account holds in this process (faults/held counts every instance's: shared-holds.ts). */
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
