import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { clientOf, networkOf } from '../../src/http/address-groups.js';
import { ConnectionGuard, connectionLimits, readFileLimit } from '../../src/http/connection-guard.js';
import { FailureThrottle, MAX_FAILURES, MAX_NETWORK_FAILURES } from '../../src/http/failure-throttle.js';

// What counts per client and per network (docs/hosted.md): an IPv4 address or an IPv6 /64 is one client, an IPv4 /24
// or an IPv6 /48 one network; the failure throttles remember within a bound that a flood of new addresses cannot
// wipe; the connection caps derive from the open-file limit. The real-process floods are in anonymous-flood.test.ts.

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
    [4096, 1_048_576, { total: 4096, anonymous: 2048, perClient: 64 }],
    [4096, 1024, { total: 512, anonymous: 256, perClient: 8 }],
    [0, 20_000, { total: 10_000, anonymous: 5000, perClient: 156 }],
    [100, 1024, { total: 100, anonymous: 50, perClient: 8 }],
  ])('configured %i under a file limit of %i', (configured, fileLimit, expected) => {
    expect(connectionLimits(configured, fileLimit)).toEqual({ fileLimit, ...expected });
  });
});

/** What the guard reads of a socket: its address, whether a response is under way, and its close. */
function fakeSocket(remoteAddress: string, busy = false) {
  const socket = Object.assign(new EventEmitter(), {
    remoteAddress,
    _httpMessage: busy ? {} : null,
    destroyed: false,
    destroy() {
      if (socket.destroyed) return;
      socket.destroyed = true;
      socket.emit('close');
    },
  });
  return socket;
}

describe('the connection guard', () => {
  const limits = { fileLimit: 64, total: 32, anonymous: 16, perClient: 4 };
  const accept = (guard: ConnectionGuard, s: ReturnType<typeof fakeSocket>) => guard.accept(s as unknown as Socket);

  it('IPv6 clients of one /64 share the per-client bound: their oldest idle connection goes first', () => {
    const guard = new ConnectionGuard(limits);
    const mine = Array.from({ length: 4 }, (_, i) => fakeSocket(`2001:db8:0:1::${i + 1}`));
    for (const s of mine) expect(accept(guard, s)).toBe(true);
    const other = fakeSocket('2001:db8:0:2::1');
    expect(accept(guard, other)).toBe(true);
    const fifth = fakeSocket('2001:db8:0:1::99');
    expect(accept(guard, fifth)).toBe(true);
    expect(mine.map((s) => s.destroyed)).toEqual([true, false, false, false]);
    expect(other.destroyed).toBe(false);
  });

  it('a client whose every connection is busy is turned away, and no one else pays for it', () => {
    const guard = new ConnectionGuard(limits);
    const busy = Array.from({ length: 4 }, () => fakeSocket('192.0.2.1', true));
    for (const s of busy) accept(guard, s);
    const turnedAway = fakeSocket('192.0.2.1');
    expect(accept(guard, turnedAway)).toBe(false);
    expect(turnedAway.destroyed).toBe(true);
    expect(busy.some((s) => s.destroyed)).toBe(false);
    expect(accept(guard, fakeSocket('192.0.2.2'))).toBe(true);
  });

  it("at the anonymous cap the oldest idle anonymous connection goes, never a tenant's", () => {
    const guard = new ConnectionGuard(limits);
    const tenant = fakeSocket('198.51.100.1');
    accept(guard, tenant);
    guard.claim(tenant as unknown as Socket);
    const anonymous = Array.from({ length: 16 }, (_, i) => fakeSocket(`203.0.113.${i + 1}`));
    for (const s of anonymous) accept(guard, s);
    expect(accept(guard, fakeSocket('203.0.113.200'))).toBe(true);
    expect(anonymous.filter((s) => s.destroyed)).toEqual([anonymous[0]]);
    expect(tenant.destroyed).toBe(false);
    expect(guard.counts()).toEqual({ open: 17, anonymous: 16 });
  });

  it('at the total cap an idle tenant connection goes when no anonymous one is idle', () => {
    const guard = new ConnectionGuard({ fileLimit: 16, total: 8, anonymous: 4, perClient: 4 });
    const tenants = Array.from({ length: 8 }, (_, i) => fakeSocket(`198.51.100.${i + 1}`, i > 0));
    for (const s of tenants) {
      accept(guard, s);
      guard.claim(s as unknown as Socket);
    }
    expect(accept(guard, fakeSocket('203.0.113.1'))).toBe(true);
    expect(tenants.map((s) => s.destroyed)).toEqual([true, ...Array(7).fill(false)]);
  });
});
