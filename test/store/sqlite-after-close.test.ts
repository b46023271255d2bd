import { describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/store/db.js';

// A timer may still try a transaction after its server closed the store (a lease renewal, a poll of held requests).
// Refused, that transaction must leave the store as it was: its count of open transactions once stayed up, and every
// later statement's wait for the store to be idle spun on a settled promise, a core at 100 % for ever.
describe('SQLite store after close', () => {
  it('refuses a transaction and then a statement, each at once, instead of spinning', async () => {
    const store = openSqlite(':memory:');
    await store.close();
    await expect(store.transaction(async (tx) => await tx.value('SELECT 1'))).rejects.toThrow();
    await expect(store.value('SELECT 1')).rejects.toThrow();
    await expect(store.close()).resolves.toBeUndefined();
  });
});
