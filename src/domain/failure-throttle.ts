// Failed operator sign-ins and admin tokens, counted per client address on the wall clock: past MAX_FAILURES in a
// minute the address is refused (429) until the minute is over, so a token cannot be guessed at the server's speed
// (1,000 wrong tokens took 1.8 s, all answered at once). The address is the connection's: behind a reverse proxy
// every client shares the proxy's, and the throttle belongs in the proxy (docs/hosted.md).

export const MAX_FAILURES = 10;
const WINDOW_MS = 60_000;
/** Addresses remembered at once; past it the table starts over (a flood of addresses gains one fresh window). */
const MAX_ADDRESSES = 10_000;

interface Window {
  startMs: number;
  failures: number;
}

export class FailureThrottle {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly wallClock: () => number) {}

  /** Seconds until the address may try again, or 0 when it may now. */
  waitSeconds(address: string): number {
    const w = this.current(address);
    if (!w || w.failures < MAX_FAILURES) return 0;
    return Math.max(1, Math.ceil((w.startMs + WINDOW_MS - this.wallClock()) / 1000));
  }

  fail(address: string): void {
    const w = this.current(address);
    if (w) {
      w.failures++;
      return;
    }
    if (this.windows.size >= MAX_ADDRESSES) this.windows.clear();
    this.windows.set(address, { startMs: this.wallClock(), failures: 1 });
  }

  private current(address: string): Window | undefined {
    const w = this.windows.get(address);
    if (w && this.wallClock() - w.startMs >= WINDOW_MS) {
      this.windows.delete(address);
      return undefined;
    }
    return w;
  }
}

const throttles = new WeakMap<object, FailureThrottle>();

/** The one throttle of a server's operator credentials, shared by the operator API and the console's sign-in. */
export function operatorThrottleOf(deps: { wallClock: () => number }): FailureThrottle {
  let throttle = throttles.get(deps);
  if (!throttle) throttles.set(deps, (throttle = new FailureThrottle(deps.wallClock)));
  return throttle;
}
