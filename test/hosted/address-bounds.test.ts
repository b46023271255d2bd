import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clientOf, networkOf } from '../../src/http/address-groups.js';
import {
  ConnectionGuard,
  connectionLimits,
  readFileLimit,
  type ConnectionLimits,
} from '../../src/http/connection-guard.js';
import { FailureThrottle, MAX_FAILURES, MAX_NETWORK_FAILURES } from '../../src/http/failure-throttle.js';

// What counts per client and per network (docs/hosted.md): an IPv4 address or an IPv6 /64 is one client, an IPv4 /24
// or an IPv6 /48 one network; the failure throttles remember within a bound that a flood of new addresses cannot
// wipe; the connection caps derive from the open-file limit; the connection guard closes only connections that carry
// no request, and holds the rest for an answer. The real-process floods are in anonymous-flood.test.ts, the bursts in
// connection-bursts.test.ts.

describe('client addresses are grouped as a provider hands them out', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7', '203.0.113.0/24'],
    ['::ffff:203.0.113.7', '203.0.113.7', '203.0.113.0/24'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64', '2001:db8:1::/48'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64', '2001:db8:1::/48'],
    ['fe80::1%eth0', 'fe80::/64', 'fe80::/48'],
    ['::1', '::/64', '::/48'],
  ])('%s is client %s of network %s', (address, client, network) => {
    expect([clientOf(address), networkOf(address)]).toEqual([client, network]);
  });
});

describe('failure throttles: per client, per network, within a bound', () => {
  const wall = { ms: 0 };
  const clock = () => wall.ms;

  it('the addresses of one IPv6 /64 are one client', () => {
    const throttle = new FailureThrottle(clock);
    for (let i = 1; i <= MAX_FAILURES; i++) throttle.fail(`2001:db8:1:2::${i.toString(16)}`);
    expect(throttle.waitSeconds('2001:db8:1:2::abcd')).toBe(60);
    expect(throttle.waitSeconds('2001:db8:1:3::1')).toBe(0);
  });

  it(`a network is refused past ${MAX_NETWORK_FAILURES} failures, whichever of its clients made them`, () => {
    const throttle = new FailureThrottle(clock);
    for (let i = 1; i <= MAX_NETWORK_FAILURES; i++) throttle.fail(`198.51.100.${i}`);
    expect(throttle.waitSeconds('198.51.100.200')).toBe(60);
    expect(throttle.waitSeconds('198.51.101.1')).toBe(0);
    wall.ms += 60_000;
    expect(throttle.waitSeconds('198.51.100.200')).toBe(0);
  });

  it('a flood of new addresses stays within the bound and forgets the busiest offender last', () => {
    const capacity = 1000;
    const throttle = new FailureThrottle(clock, capacity);
    for (let i = 0; i < MAX_FAILURES; i++) throttle.fail('192.0.2.1');
    const busy = '192.0.2.77';
    for (let i = 0; i < 3; i++) throttle.fail(busy);
    // Each in a network of its own, so both tables flood.
    for (let i = 0; i < 30 * capacity; i++) throttle.fail(`10.${(i >> 8) & 255}.${i & 255}.1`);
    expect(throttle.remembered()).toEqual({ clients: capacity, networks: capacity });
    expect(throttle.waitSeconds('192.0.2.1')).toBeGreaterThan(0);
    // Three failures outlived thirty thousand single ones; one more makes four, not one.
    for (let i = 0; i < MAX_FAILURES - 3; i++) throttle.fail(busy);
    expect(throttle.waitSeconds(busy)).toBeGreaterThan(0);
  });

  it('an expired window is forgotten before a live one, whatever their counts', () => {
    const throttle = new FailureThrottle(clock, 2);
    for (let i = 0; i < MAX_FAILURES; i++) throttle.fail('192.0.2.1');
    wall.ms += 60_000;
    throttle.fail('192.0.2.2');
    throttle.fail('192.0.2.3');
    throttle.fail('192.0.2.2');
    expect(throttle.remembered().clients).toBe(2);
    for (let i = 0; i < MAX_FAILURES - 2; i++) throttle.fail('192.0.2.2');
    expect(throttle.waitSeconds('192.0.2.2')).toBe(60);
  });
});

describe('connection caps derive from the open-file limit', () => {
  it('reads the soft limit from /proc/self/limits', () => {
    const text =
      'Limit                     Soft Limit           Hard Limit           Units\n' +
      'Max open files            1024                 1048576              files\n';
    expect(readFileLimit(text)).toBe(1024);
    expect(readFileLimit(text.replace('1024 ', 'unlimited'))).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each([
    [4096, 1_048_576, { total: 4096, anonymous: 2048, perClient: 64, refusals: 512 }],
    [4096, 1024, { total: 512, anonymous: 256, perClient: 8, refusals: 64 }],
    [0, 20_000, { total: 10_000, anonymous: 5000, perClient: 156, refusals: 1250 }],
    [100, 1024, { total: 100, anonymous: 50, perClient: 8, refusals: 12 }],
  ])('configured %i under a file limit of %i', (configured, fileLimit, expected) => {
    expect(connectionLimits(configured, fileLimit)).toEqual({ fileLimit, ...expected });
  });
});

/** What the guard reads of a socket: its address, whether a response is under way, what it sent, and its close. */
function fakeSocket(remoteAddress: string, busy = false) {
  const socket = Object.assign(new EventEmitter(), {
    remoteAddress,
    _httpMessage: (busy ? {} : null) as object | null,
    bytesRead: 0,
    destroyed: false,
    destroy() {
      if (socket.destroyed) return;
      socket.destroyed = true;
      socket.emit('close');
    },
  });
  return socket;
}
type FakeSocket = ReturnType<typeof fakeSocket>;

/** A new connection's first moment here (hosted mode's: a tenth of its 10 s headers timeout). */
const FIRST_REQUEST_MS = 1_000;

/** A guard whose sockets are fakes; `trusted` addresses are a proxy's. */
function guardOf(limits: ConnectionLimits, trusted: string[] = []) {
  const guard = new ConnectionGuard(limits, { trusts: (a) => trusted.includes(a!), firstRequestMs: FIRST_REQUEST_MS });
  return {
    guard,
    accept: (s: FakeSocket) => guard.accept(s as unknown as Socket),
    /** A request arrives: a response is under way on its connection until `answered`. */
    admit: (s: FakeSocket, keyed = false) => {
      s._httpMessage = {};
      return guard.admit(s as unknown as Socket, keyed);
    },
    answered: (s: FakeSocket) => (s._httpMessage = null),
    claim: (s: FakeSocket) => guard.claim(s as unknown as Socket),
  };
}

/** The first moment of every connection open now is over: the guard's timers, then the check each one schedules. */
const firstMomentOver = () => {
  vi.advanceTimersByTime(FIRST_REQUEST_MS);
  vi.advanceTimersByTime(1);
};

describe('the connection guard', () => {
  beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] }));
  afterEach(() => void vi.useRealTimers());
  const limits = { fileLimit: 64, total: 32, anonymous: 16, perClient: 4, refusals: 4 };

  it('IPv6 clients of one /64 share the per-client bound: their oldest idle connection goes first', () => {
    const { accept } = guardOf(limits);
    const mine = Array.from({ length: 4 }, (_, i) => fakeSocket(`2001:db8:0:1::${i + 1}`));
    for (const s of mine) expect(accept(s)).toBe('admitted');
    const other = fakeSocket('2001:db8:0:2::1');
    expect(accept(other)).toBe('admitted');
    firstMomentOver();
    const fifth = fakeSocket('2001:db8:0:1::99');
    expect(accept(fifth)).toBe('admitted');
    expect(mine.map((s) => s.destroyed)).toEqual([true, false, false, false]);
    expect(other.destroyed).toBe(false);
  });

  it('a connection in its first moment is never closed to make room: the newcomer is held for its request', () => {
    const { guard, accept, admit, answered } = guardOf(limits);
    // Opened together, none read yet: each may have its request on the wire.
    const burst = Array.from({ length: 7 }, () => fakeSocket('192.0.2.1'));
    expect(burst.map(accept)).toEqual(['admitted', 'admitted', 'admitted', 'admitted', 'held', 'held', 'held']);
    expect(burst.some((s) => s.destroyed)).toBe(false);
    // A held one's request with a key comes in (it counts against its tenant, not its address); without one it is
    // refused, to be answered 429.
    expect(admit(burst[4]!, true)).toEqual({ admitted: true, byKey: true });
    expect(admit(burst[5]!)).toEqual({ admitted: false, bound: 'client', limit: 4 });
    expect(guard.refused).toBe(1);
    // Once one of the first has carried a request and sits between requests, room is made by closing it.
    admit(burst[0]!);
    answered(burst[0]!);
    expect(admit(burst[6]!)).toEqual({ admitted: true, byKey: false });
    expect(burst.map((s) => s.destroyed)).toEqual([true, false, false, false, false, false, false]);
  });

  it('a client whose every connection is busy: the next one is held and refused, and no one else pays for it', () => {
    const { guard, accept, admit } = guardOf(limits);
    const busy = Array.from({ length: 4 }, () => fakeSocket('192.0.2.1', true));
    for (const s of busy) accept(s);
    firstMomentOver();
    const turnedAway = fakeSocket('192.0.2.1');
    expect(accept(turnedAway)).toBe('held');
    expect(admit(turnedAway)).toEqual({ admitted: false, bound: 'client', limit: 4 });
    expect(turnedAway.destroyed).toBe(false);
    expect(busy.some((s) => s.destroyed)).toBe(false);
    expect(accept(fakeSocket('192.0.2.2'))).toBe('admitted');
    expect(guard.counts()).toEqual({ open: 5, anonymous: 5, held: 1 });
  });

  it('holds at most `refusals` connections: past it one silent past its first moment goes, else the newcomer', () => {
    const { guard, accept, admit } = guardOf(limits);
    for (let i = 0; i < 4; i++) accept(fakeSocket('192.0.2.1', true));
    const held = Array.from({ length: 4 }, () => fakeSocket('192.0.2.1'));
    expect(held.map(accept)).toEqual(['held', 'held', 'held', 'held']);
    const dropped = fakeSocket('192.0.2.1');
    expect(accept(dropped)).toBe('dropped');
    expect(dropped.destroyed).toBe(true);
    expect(guard.dropped).toBe(1);
    // Held, they wait for their request (a slow client's comes late); they make room only once their first moment
    // is over without one, and one whose request came (answered 429) is never closed for room.
    admit(held[0]!);
    firstMomentOver();
    expect(held.some((s) => s.destroyed)).toBe(false);
    expect(accept(fakeSocket('192.0.2.1'))).toBe('held');
    expect(held.map((s) => s.destroyed)).toEqual([false, true, false, false]);
  });

  it("a trusted proxy's connections are not bounded per client: they carry many clients' requests", () => {
    const { accept, guard } = guardOf(limits, ['10.0.0.5']);
    const proxied = Array.from({ length: 10 }, () => fakeSocket('10.0.0.5'));
    expect(proxied.map(accept)).toEqual(Array(10).fill('admitted'));
    expect(guard.counts()).toEqual({ open: 10, anonymous: 10, held: 0 });
  });

  it("at the anonymous cap the oldest idle anonymous connection goes, never a tenant's", () => {
    const { guard, accept, claim } = guardOf(limits);
    const tenant = fakeSocket('198.51.100.1');
    accept(tenant);
    claim(tenant);
    const anonymous = Array.from({ length: 16 }, (_, i) => fakeSocket(`203.0.113.${i + 1}`));
    for (const s of anonymous) accept(s);
    firstMomentOver();
    expect(accept(fakeSocket('203.0.113.200'))).toBe('admitted');
    expect(anonymous.filter((s) => s.destroyed)).toEqual([anonymous[0]]);
    expect(tenant.destroyed).toBe(false);
    expect(guard.counts()).toEqual({ open: 17, anonymous: 16, held: 0 });
  });

  it('at the total cap an idle tenant connection goes when no anonymous one is idle', () => {
    const { accept, admit, answered, claim } = guardOf({
      fileLimit: 16,
      total: 8,
      anonymous: 4,
      perClient: 4,
      refusals: 2,
    });
    const tenants = Array.from({ length: 8 }, (_, i) => fakeSocket(`198.51.100.${i + 1}`, i > 0));
    for (const [i, s] of tenants.entries()) {
      accept(s);
      admit(s, true);
      claim(s);
      if (i === 0) answered(s);
    }
    expect(accept(fakeSocket('203.0.113.1'))).toBe('admitted');
    expect(tenants.map((s) => s.destroyed)).toEqual([true, ...Array(7).fill(false)]);
  });
});
