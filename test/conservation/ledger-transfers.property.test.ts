import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/kernel/errors.js';
import { MAX_BALANCE_MICROS, transfers, type LedgerKind, type TransferInput } from '../../src/domain/ledger/ledger.js';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { propertyRuns, propertyTimeoutMs } from '../helpers/property-runs.js';

// docs/design.md section 15, the ledger's rules: several transfers posted together (as card/create and card/deposit
// post the credit and its fee) leave every balance where posting them one by one leaves it, append one row per
// transfer in their order, and fail, changing nothing, exactly when one of them one by one would break a rule: a
// balance that is not a source (seed, chain, goodwill) nor an overdrawn card below zero, or any balance past
// MAX_BALANCE_MICROS either way. The oracle is a fold of those rules over a map of numbers, step by step.

const ACCOUNT_KINDS = ['seed', 'chain', 'goodwill', 'wallet', 'settling', 'fee', 'merchant'] as const;
const CARD_KINDS = ['card', 'held'] as const;
const SOURCES = new Set<string>(['seed', 'chain', 'goodwill']);
const U = 1_000_000;

/** A side of a transfer: a ledger account of the partner account, or of one of two cards (named per account). */
interface Side {
  kind: LedgerKind;
  card?: 'a' | 'b';
}

const side: fc.Arbitrary<Side> = fc.oneof(
  fc.constantFrom(...ACCOUNT_KINDS).map((kind) => ({ kind })),
  fc.record({ kind: fc.constantFrom(...CARD_KINDS), card: fc.constantFrom('a' as const, 'b' as const) }),
);
const amount = fc.oneof(
  { weight: 1, arbitrary: fc.constant(0) },
  { weight: 12, arbitrary: fc.integer({ min: 1, max: 400 }).map((n) => n * U) },
  { weight: 1, arbitrary: fc.integer({ min: MAX_BALANCE_MICROS - 500 * U, max: MAX_BALANCE_MICROS }) },
);
const drawn = fc.record({ debit: side, credit: side, amountMicros: amount, overdraw: fc.boolean() });

const cardIdOf = (accountId: string, s: Side) => (s.card ? `${accountId}_card_${s.card}` : undefined);
const ownerOf = (accountId: string, s: { kind: LedgerKind; cardId?: string }) => `${s.kind}:${s.cardId ?? accountId}`;

let sb: TestSandbox;
beforeAll(() => {
  sb = createTestSandbox();
});
afterAll(() => sb.close());

async function state(accountId: string) {
  const balances = await sb.deps.store.all<{ id: string; balance_micros: number }>(
    'SELECT id, balance_micros FROM ledger_accounts WHERE account_id = ? ORDER BY id',
    [accountId],
  );
  const rows = await sb.deps.store.all<{ debit_id: string; credit_id: string; amount_micros: number; reason: string }>(
    'SELECT debit_id, credit_id, amount_micros, reason FROM transfers WHERE account_id = ? ORDER BY id',
    [accountId],
  );
  return { balances: new Map(balances.map((b) => [b.id, b.balance_micros])), rows };
}

describe('Ledger: transfers posted together', () => {
  it(
    'move every balance as one by one would, append one row each in order, and fail changing nothing when a step breaks a rule',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(drawn, { minLength: 1, maxLength: 4 }),
          fc.integer({ min: 0, max: 1000 }),
          async (drawnTransfers, walletUsdt) => {
            const { accountId } = await sb.account({ balance: walletUsdt });
            // Only a card debit may be overdrawn (the ledger refuses the flag elsewhere, a programming error).
            const list: TransferInput[] = drawnTransfers.map((t, i) => ({
              accountId,
              debit: { kind: t.debit.kind, cardId: cardIdOf(accountId, t.debit) },
              credit: { kind: t.credit.kind, cardId: cardIdOf(accountId, t.credit) },
              amountMicros: t.amountMicros,
              overdraw: t.overdraw && t.debit.kind === 'card',
              reason: `test.${i}`,
              atMs: 0,
            }));
            const before = await state(accountId);

            // The oracle: the rules, step by step.
            const expected = new Map(before.balances);
            let broken: 'negative' | 'bound' | undefined;
            for (const t of list.filter((t) => t.amountMicros > 0)) {
              const debit = ownerOf(accountId, t.debit);
              const credit = ownerOf(accountId, t.credit);
              const d = (expected.get(debit) ?? 0) - t.amountMicros;
              expected.set(debit, d);
              if (d < 0 && !SOURCES.has(t.debit.kind) && !t.overdraw) broken ??= 'negative';
              if (Math.abs(d) > MAX_BALANCE_MICROS) broken ??= 'bound';
              const c = (expected.get(credit) ?? 0) + t.amountMicros;
              expected.set(credit, c);
              if (Math.abs(c) > MAX_BALANCE_MICROS) broken ??= 'bound';
            }

            const outcome = await sb.deps.transactions
              .run((deps) => transfers(deps, list))
              .then(
                () => 'posted' as const,
                (err: unknown) => err,
              );
            const after = await state(accountId);
            if (broken) {
              // Which rule it names may differ from the first one one-by-one meets; that one is broken is what counts.
              expect(outcome).not.toBe('posted');
              if (outcome instanceof DomainError) expect(outcome.errorName).toBe('BALANCE_OUT_OF_BOUNDS');
              else expect(String(outcome)).toMatch(/ledger invariant/);
              expect(after).toEqual(before);
              return;
            }
            expect(outcome).toBe('posted');
            for (const [id, micros] of expected) expect(after.balances.get(id) ?? 0, id).toBe(micros);
            expect(after.rows.slice(before.rows.length)).toEqual(
              list
                .filter((t) => t.amountMicros > 0)
                .map((t) => ({
                  debit_id: ownerOf(accountId, t.debit),
                  credit_id: ownerOf(accountId, t.credit),
                  amount_micros: t.amountMicros,
                  reason: t.reason,
                })),
            );
          },
        ),
        { numRuns: propertyRuns(150) },
      );
    },
    propertyTimeoutMs(120_000),
  );
});
