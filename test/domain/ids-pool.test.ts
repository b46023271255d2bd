import { describe, expect, it } from 'vitest';
import { Ids, pooledRandomBytes } from '../../src/domain/kernel/ids.js';

describe('pooled random bytes behind every id', () => {
  it('serves requests of any size, larger than the pool included', () => {
    expect(pooledRandomBytes(16)).toHaveLength(16);
    expect(pooledRandomBytes(10_000)).toHaveLength(10_000);
  });

  it('keeps ids unique across many pool refills', () => {
    const ids = new Ids();
    const seen = new Set(Array.from({ length: 20_000 }, () => ids.eventId()));
    expect(seen.size).toBe(20_000);
  });

  it('never hands the same bytes out twice (an earlier slice is not overwritten by a refill)', () => {
    const first = Buffer.from(pooledRandomBytes(32));
    const view = pooledRandomBytes(32);
    const copy = Buffer.from(view);
    for (let i = 0; i < 1000; i++) pooledRandomBytes(64);
    expect(view.equals(copy)).toBe(true);
    expect(view.equals(first)).toBe(false);
  });
});
