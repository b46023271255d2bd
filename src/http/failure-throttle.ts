import { clientOf, networkOf } from './address-groups.js';

// Failed credentials (admin tokens, operator sign-ins, API-key sign-ins at the console), counted on the wall clock
// per client (an IPv4 address, an IPv6 /64: address-groups.ts) and per network (an IPv4 /24, an IPv6 /48): past
// MAX_FAILURES in a minute a client is refused (429) until its minute is over, and past MAX_NETWORK_FAILURES so is
// its whole network, so a credential cannot be guessed at the server's speed (1,000 wrong tokens took 1.8 s, all
// answered at once), nor by moving through the addresses of one allocation. What is remembered is bounded, and a
// flood of new addresses cannot wipe it: the table forgets an expired window first, then the one with the fewest
// failures (oldest first), so the busiest offenders are the last forgotten (once, 10,001 other addresses emptied a
// table that started over when full, and an address refused a moment before passed again). The address is the
// connection's: behind a reverse proxy every client shares the proxy's, and the throttle belongs in the proxy too.
// Several instances on one database each count apart and grant their share of each bound (the bound over the live
// instances, rounded up, at least 1: kernel/deployment.ts), as with the tenant budgets: a guesser spread over N
// instances by a load balancer gets about one instance's bound, not N times it, and no failure costs a database write.

export const MAX_FAILURES = 10;
export const MAX_NETWORK_FAILURES = 50;
const WINDOW_MS = 60_000;
/** Windows remembered at once, per table (clients, networks). */
const MAX_REMEMBERED = 10_000;

interface Window {
  key: string;
  startMs: number;
  failures: number;
}

/**
 * Failure windows by key, within a bound. Each window sits in the tier of its failure count (capped at `ceiling`),
 * each tier in the order its windows reached it; the lowest tier's oldest window is the first forgotten.
 */
class FailureWindows {
  private readonly byKey = new Map<string, Window>();
  private readonly tiers: Set<Window>[] = [];

  constructor(
    private readonly ceiling: number,
    private readonly capacity: number,
    private readonly wallClock: () => number,
  ) {}

  /** Failures in the key's current window (0 when it has none). */
  failures(key: string): number {
    return this.current(key)?.failures ?? 0;
  }

  /** Seconds until the key's window is over (at least 1), for a key past its bound. */
  secondsLeft(key: string): number {
    const w = this.current(key);
    return w ? Math.max(1, Math.ceil((w.startMs + WINDOW_MS - this.wallClock()) / 1000)) : 0;
  }

  fail(key: string): void {
    const w = this.current(key);
    if (w) {
      this.tierOf(w).delete(w);
      w.failures++;
      this.tierOf(w).add(w);
      return;
    }
    if (this.byKey.size >= this.capacity) this.forgetOne();
    const fresh: Window = { key, startMs: this.wallClock(), failures: 1 };
    this.byKey.set(key, fresh);
    this.tierOf(fresh).add(fresh);
  }

  get size(): number {
    return this.byKey.size;
  }

  private current(key: string): Window | undefined {
    const w = this.byKey.get(key);
    if (w && this.expired(w)) {
      this.remove(w);
      return undefined;
    }
    return w;
  }

  private expired(w: Window): boolean {
    return this.wallClock() - w.startMs >= WINDOW_MS;
  }

  private tierOf(w: Window): Set<Window> {
    const t = Math.min(w.failures, this.ceiling);
    return (this.tiers[t] ??= new Set());
  }

  private remove(w: Window): void {
    this.byKey.delete(w.key);
    this.tierOf(w).delete(w);
  }

  /** Forgets an expired window (the oldest of some tier), else the oldest window of the lowest tier. */
  private forgetOne(): void {
    let lowest: Window | undefined;
    for (const tier of this.tiers) {
      const oldest = tier?.values().next().value;
      if (oldest === undefined) continue;
      if (this.expired(oldest)) return this.remove(oldest);
      lowest ??= oldest;
    }
    if (lowest) this.remove(lowest);
  }
}

export class FailureThrottle {
  private readonly clients: FailureWindows;
  private readonly networks: FailureWindows;

  /** @param share this instance's share of a deployment-wide bound (the bound itself where one process serves) */
  constructor(
    wallClock: () => number,
    capacity = MAX_REMEMBERED,
    private readonly share: (bound: number) => number = (bound) => bound,
  ) {
    this.clients = new FailureWindows(MAX_FAILURES, capacity, wallClock);
    this.networks = new FailureWindows(MAX_NETWORK_FAILURES, capacity, wallClock);
  }

  /** Seconds until the address may try again, or 0 when it may now. */
  waitSeconds(address: string): number {
    const client = clientOf(address);
    const network = networkOf(address);
    return Math.max(
      this.clients.failures(client) >= this.share(MAX_FAILURES) ? this.clients.secondsLeft(client) : 0,
      this.networks.failures(network) >= this.share(MAX_NETWORK_FAILURES) ? this.networks.secondsLeft(network) : 0,
    );
  }

  fail(address: string): void {
    this.clients.fail(clientOf(address));
    this.networks.fail(networkOf(address));
  }

  /** Windows remembered now (clients, networks): each table stays within its bound. */
  remembered(): { clients: number; networks: number } {
    return { clients: this.clients.size, networks: this.networks.size };
  }
}
