import { describe, expect, it } from 'vitest';
import { createAccount, seedBalance, type Account } from '../../src/domain/accounts/accounts.js';
import { authorize, incrementAuthorisation } from '../../src/domain/network/authorisations.js';
import { clearTransaction, forcePost } from '../../src/domain/network/clearings.js';
import { refundTransaction } from '../../src/domain/network/refunds.js';
import { reverseTransaction } from '../../src/domain/network/reversals.js';
import { cancelCard, createCard, depositToCard } from '../../src/domain/cards/cards.js';
import { recordTransfer } from '../../src/domain/chain/chain.js';
import type { Deps } from '../../src/domain/kernel/deps.js';
import { DomainError, type ErrorName } from '../../src/domain/kernel/errors.js';
import type { LedgerKind } from '../../src/domain/ledger/ledger.js';
import { expectConserved } from '../helpers/core.js';
import { merchantFor } from '../../src/domain/network/merchants.js';
import { createDeps } from '../../src/wiring.js';
import { START_MS, testConfig } from '../helpers/sandbox.js';

// The ledger-moving domain commands, called directly (no HTTP), each on a fresh in-memory database: what every
// ledger account holds afterwards, and that debits still equal credits. Amounts in USDT; the account pays the
// 2 % deposit fee, the default BIN no open fee, 1 USDT minimum.

const U = 1_000_000;

/** What each kind of ledger account of the partner account holds (0 for none), cards summed, read from the table. */
async function balancesByKind(deps: Deps, accountId: string): Promise<Record<string, number>> {
  const rows = await deps.store.all<{ kind: LedgerKind; total: number }>(
    'SELECT kind, SUM(balance_micros) AS total FROM ledger_accounts WHERE account_id = ? GROUP BY kind',
    [accountId],
  );
  const kinds: LedgerKind[] = ['seed', 'chain', 'goodwill', 'wallet', 'settling', 'fee', 'merchant', 'card', 'held'];
  const held = new Map(rows.map((r) => [r.kind, r.total]));
  return Object.fromEntries(kinds.map((k) => [k, held.get(k) ?? 0]));
}

interface World {
  deps: Deps;
  account: Account;
  /** The command runner of these tests: one transaction around the command, as the HTTP layer's runner does. */
  run<T>(command: (deps: Deps, nowMs: number) => T | Promise<T>): Promise<T>;
  /** Runs the account's due jobs up to `seconds` later (each in its own transaction, as the job runner does). */
  after(seconds: number): Promise<void>;
  cardId: string;
}

async function world(): Promise<World> {
  const deps = createDeps({ config: testConfig(), wallClock: () => START_MS });
  const run = <T>(command: (deps: Deps, nowMs: number) => T | Promise<T>): Promise<T> =>
    deps.transactions.run(async (deps) => command(deps, START_MS));
  const account = await run((deps) =>
    createAccount(deps, { depositFeeRatePpm: 20_000, depositAddress: null, balanceMicros: 1000 * U }),
  );
  return {
    deps,
    account,
    run,
    after: async (seconds) => void (await deps.jobs.runForegroundDue(deps, account.id, START_MS + seconds * 1000)),
    cardId: '',
  };
}

const withCard = async (w: World) => {
  w.cardId = (await w.run((deps, now) => createCard(deps, w.account, { amountMicros: 100 * U }, now))).card.id;
};

async function authorized(w: World, amount: number): Promise<string> {
  const transactionId = w.deps.ids.transactionId();
  const merchant = await merchantFor(transactionId, {});
  const input = { transactionId, cardId: w.cardId, amountMicros: amount * U, currency: 'USD', merchant };
  return (await w.run((deps, now) => authorize(deps, w.account.id, input, now))).transactionId;
}

type Balances = Partial<Record<LedgerKind, number>>;

const CASES: { name: string; act: (w: World) => void | Promise<void>; balances: Balances }[] = [
  {
    name: 'seed credits the wallet from the seed source',
    act: async (w) => void (await w.run((deps, now) => seedBalance(deps, w.account.id, 50 * U, now))),
    balances: { seed: -1050 * U, wallet: 1050 * U },
  },
  {
    name: 'card/create debits the amount, credits the card net of the 2 % fee',
    act: withCard,
    balances: { seed: -1000 * U, wallet: 900 * U, card: 98 * U, fee: 2 * U },
  },
  {
    name: 'card/deposit debits the wallet now; the credit waits in settling',
    act: async (w) => {
      await withCard(w);
      await w.run((deps, now) => depositToCard(deps, w.account, w.cardId, 50 * U, now));
    },
    balances: { wallet: 850 * U, settling: 49 * U, card: 98 * U, fee: 3 * U },
  },
  {
    name: 'the top-up settles onto the card topUpSettleSeconds later',
    act: async (w) => {
      await withCard(w);
      await w.run((deps, now) => depositToCard(deps, w.account, w.cardId, 50 * U, now));
      await w.after(3);
    },
    balances: { wallet: 850 * U, settling: 0, card: 147 * U, fee: 3 * U },
  },
  {
    name: 'card/cancel holds the balance until cancelSeconds later, then returns it to the wallet',
    act: async (w) => {
      await withCard(w);
      await w.run((deps, now) => cancelCard(deps, w.account.id, w.cardId, now));
      await w.after(5);
    },
    balances: { wallet: 998 * U, card: 0, fee: 2 * U },
  },
  {
    name: 'card/authorize holds the bill amount',
    act: async (w) => {
      await withCard(w);
      await authorized(w, 10);
    },
    balances: { card: 88 * U, held: 10 * U },
  },
  {
    name: 'transaction/clear for less posts that much and releases the rest',
    act: async (w) => {
      await withCard(w);
      const id = await authorized(w, 10);
      await w.run((deps, now) =>
        clearTransaction(deps, w.account.id, { transactionId: id, amountMicros: 8 * U, final: true }, now),
      );
    },
    balances: { card: 90 * U, held: 0, merchant: 8 * U },
  },
  {
    name: 'transaction/reverse returns the hold to the card',
    act: async (w) => {
      await withCard(w);
      const id = await authorized(w, 10);
      await w.run((deps, now) => reverseTransaction(deps, w.account.id, { transactionId: id }, now));
    },
    balances: { card: 98 * U, held: 0, merchant: 0 },
  },
  {
    name: 'transaction/refund moves part of a clearing back from the merchant',
    act: async (w) => {
      await withCard(w);
      const id = await authorized(w, 10);
      await w.run((deps, now) => clearTransaction(deps, w.account.id, { transactionId: id, final: true }, now));
      await w.run((deps, now) =>
        refundTransaction(deps, w.account.id, { transactionId: id, amountMicros: 4 * U }, now),
      );
    },
    balances: { card: 92 * U, held: 0, merchant: 6 * U },
  },
  {
    name: 'transaction/increment moves the extra from the card into the hold',
    act: async (w) => {
      await withCard(w);
      const id = await authorized(w, 10);
      await w.run((deps, now) =>
        incrementAuthorisation(deps, w.account.id, { transactionId: id, amountMicros: 5 * U }, now),
      );
    },
    balances: { card: 83 * U, held: 15 * U },
  },
  {
    name: 'a partial transaction/reverse returns that part of the hold to the card',
    act: async (w) => {
      await withCard(w);
      const id = await authorized(w, 10);
      await w.run((deps, now) =>
        reverseTransaction(deps, w.account.id, { transactionId: id, amountMicros: 3 * U }, now),
      );
    },
    balances: { card: 91 * U, held: 7 * U },
  },
  {
    name: 'a partial transaction/clear posts that part of the hold to the merchant and holds the rest',
    act: async (w) => {
      await withCard(w);
      const id = await authorized(w, 10);
      const part = { transactionId: id, amountMicros: 4 * U, final: false, partId: w.deps.ids.transactionId() };
      await w.run((deps, now) => clearTransaction(deps, w.account.id, part, now));
    },
    balances: { card: 88 * U, held: 6 * U, merchant: 4 * U },
  },
  {
    name: 'transaction/clear for more than hold + available overdraws the card: the network paid the merchant',
    act: async (w) => {
      await withCard(w);
      const id = await authorized(w, 10);
      await w.run((deps, now) =>
        clearTransaction(deps, w.account.id, { transactionId: id, amountMicros: 150 * U, final: true }, now),
      );
    },
    balances: { card: -52 * U, held: 0, merchant: 150 * U },
  },
  {
    name: 'transaction/force-post takes a clearing with no hold from the card, below zero if it must',
    act: async (w) => {
      await withCard(w);
      const input = { transactionId: w.deps.ids.transactionId(), cardId: w.cardId, amountMicros: 120 * U };
      const merchant = await merchantFor(input.transactionId, {});
      await w.run((deps, now) => forcePost(deps, w.account.id, { ...input, currency: 'USD', merchant }, now));
    },
    balances: { card: -22 * U, merchant: 120 * U },
  },
  {
    name: 'a refund with no purchase credits the card from the goodwill source, leaving the merchant untouched',
    act: async (w) => {
      await withCard(w);
      const refundId = w.deps.ids.transactionId();
      const input = { cardId: w.cardId, amountMicros: 7 * U, refundId, merchant: await merchantFor(refundId, {}) };
      await w.run((deps, now) => refundTransaction(deps, w.account.id, input, now));
    },
    balances: { goodwill: -7 * U, card: 105 * U, merchant: 0 },
  },
  {
    name: 'card/cancel of a card in debt pays the debt from the wallet at once; nothing is left to return',
    act: async (w) => {
      await withCard(w);
      const id = await authorized(w, 10);
      await w.run((deps, now) =>
        clearTransaction(deps, w.account.id, { transactionId: id, amountMicros: 130 * U, final: true }, now),
      );
      await w.run((deps, now) => cancelCard(deps, w.account.id, w.cardId, now));
      await w.after(5);
    },
    balances: { wallet: 868 * U, card: 0, merchant: 130 * U },
  },
  {
    name: 'a chain transfer with 19 confirmations credits the wallet from the chain source at once',
    act: async (w) => {
      const input = {
        txId: 'ab'.repeat(32),
        address: 'T1',
        fromAddress: 'T2',
        amountMicros: 25 * U,
        confirmations: 19,
      };
      await w.run((deps, now) => recordTransfer(deps, w.account.id, input, now));
    },
    balances: { chain: -25 * U, wallet: 1025 * U },
  },
];

describe('ledger-moving domain commands', () => {
  it.each(CASES)('$name', async ({ act, balances }) => {
    const w = await world();
    await act(w);
    expect(await balancesByKind(w.deps, w.account.id)).toMatchObject(balances);
    await expectConserved(w.deps, w.account.id);
  });
});

const REFUSALS: { name: string; act: (w: World) => unknown; error: ErrorName }[] = [
  {
    name: 'card/create below the minimum deposit',
    act: async (w) => await w.run((deps, now) => createCard(deps, w.account, { amountMicros: U / 2 }, now)),
    error: 'DEPOSIT_AMOUNT_TOO_SMALL',
  },
  {
    name: 'card/create beyond the wallet',
    act: async (w) => await w.run((deps, now) => createCard(deps, w.account, { amountMicros: 2000 * U }, now)),
    error: 'ASSET_NOT_ENOUGH',
  },
  {
    name: 'card/deposit to an unknown card',
    act: async (w) => await w.run((deps, now) => depositToCard(deps, w.account, 'nope', 10 * U, now)),
    error: 'CARD_NOT_FOUND',
  },
  {
    name: 'card/deposit while a top-up settles',
    act: async (w) => {
      await withCard(w);
      await w.run((deps, now) => depositToCard(deps, w.account, w.cardId, 10 * U, now));
      await w.run((deps, now) => depositToCard(deps, w.account, w.cardId, 10 * U, now));
    },
    error: 'REJECTED_HAVING_PENDING_ORDERS',
  },
  {
    name: 'transaction/clear of an unknown transaction',
    act: async (w) =>
      await w.run((deps, now) => clearTransaction(deps, w.account.id, { transactionId: 'txn_nope', final: true }, now)),
    error: 'TRANSACTION_NOT_FOUND',
  },
  {
    name: 'card/cancel of a card whose debt the wallet cannot pay',
    act: async (w) => {
      await withCard(w);
      const forced = { transactionId: 'txn_force', cardId: w.cardId, amountMicros: 1000 * U, currency: 'USD' };
      const merchant = { merchantName: 'AIRLINE', merchantCountry: 'US', mccCategory: 'Travel' };
      await w.run((deps, now) => forcePost(deps, w.account.id, { ...forced, merchant }, now));
      await w.run((deps, now) => cancelCard(deps, w.account.id, w.cardId, now));
    },
    error: 'ASSET_NOT_ENOUGH',
  },
];

describe('refused commands change nothing', () => {
  it.each(REFUSALS)('$name: $error', async ({ act, error }) => {
    const w = await world();
    let thrown: unknown;
    try {
      await act(w);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    expect((thrown as DomainError).errorName).toBe(error);
    await expectConserved(w.deps, w.account.id);
  });

  it('a command outside its runner transaction is refused before it reads anything', async () => {
    const w = await world();
    await expect(createCard(w.deps, w.account, { amountMicros: 10 * U }, START_MS)).rejects.toThrow(
      /runner's transaction/,
    );
  });
});
