import { describe, expect } from 'vitest';
import { expectRefusedUnchanged, newCard, outbox, sim } from '../helpers/core.js';
import { fundedTest as it } from '../helpers/fixtures.js';
import { PartnerLedger } from '../helpers/partner-ledger.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { check, getRun, startRun } from './calls.js';

// The readiness check ledger-agrees (docs/readiness.md): during a run the partner posts what its own ledger says of
// its cards; the check passes when every card posted matches card/asset at the moment of the post, fails naming
// each card that differs with both figures, and is not_observed without a post.

let sb: TestSandbox;
let acct: AccountHandle;
let key: string;
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct, key] = [s, a, a.apiKey]));

const post = (cards: unknown) => sim(sb, key, 'readiness/ledger', { cards });
const figures = (ledger: PartnerLedger, cardId: string) => {
  const { available, frozen } = ledger.asset(cardId);
  const text = (m: number) => String(m / 1_000_000);
  return { cardId, availableAmount: text(available), frozenAmount: text(frozen) };
};

describe('the readiness check ledger-agrees', () => {
  it('is not_observed without a post', async () => {
    const run = await startRun(sb, key);
    expect(check(run, 'ledger-agrees')).toMatchObject({
      result: 'not_observed',
      evidence: [],
      advice: expect.stringMatching(
        /^No ledger was posted \(readiness\/ledger\) in the window\. Run traffic \(sandbox\/v1\/traffic\/start\).*See docs\/readiness\.md#ledger-agrees$/,
      ),
    });
  });

  it('passes when the ledger a partner folded from the events of traffic matches card/asset for every card posted', async () => {
    const ledger = new PartnerLedger();
    const cardIds = [await newCard(sb, key, 200), await newCard(sb, key, 100)];
    for (const [i, cardId] of cardIds.entries()) ledger.fund(cardId, (i === 0 ? 200 : 100) * 1_000_000);
    await sim(sb, key, 'traffic/start', { days: 10, perCardPerDay: 20, seed: 11 });
    await sb.advance(key, 4 * 86_400);
    const run = await startRun(sb, key);
    ledger.fold(await outbox(sb, acct.accountId));
    const res = await post(cardIds.map((c) => figures(ledger, c)));
    expect(res.body).toEqual({ code: 0, message: 'ok', runId: run.runId, result: 'pass', differences: [] });
    const report = await getRun(sb, key, run.runId);
    expect(check(report, 'ledger-agrees')).toMatchObject({ result: 'pass', advice: null });
    expect(check(report, 'ledger-agrees').evidence).toEqual([res.headers['x-request-id']]);
  });

  it('fails naming each card that differs, with both figures; a later post that agrees replaces it', async () => {
    const cardId = await newCard(sb, key, 100);
    const other = await newCard(sb, key, 50);
    await sim(sb, key, 'transaction/force-post', { cardId, amount: 112.5 });
    const run = await startRun(sb, key);
    const wrong = [
      { cardId, availableAmount: '0', frozenAmount: '0' },
      { cardId: other, availableAmount: '50', frozenAmount: '0' },
    ];
    const res = await post(wrong);
    expect(res.body).toMatchObject({ result: 'fail' });
    expect(res.body.differences).toEqual([
      {
        cardId,
        posted: { availableAmount: '0', frozenAmount: '0' },
        actual: { availableAmount: '-12.5', frozenAmount: '0' },
      },
    ]);
    const failed = check(await getRun(sb, key, run.runId), 'ledger-agrees');
    expect(failed.result).toBe('fail');
    expect(failed.advice).toContain(
      `1 of 2 cards differ: card ${cardId}: your ledger says available 0, frozen 0; card/asset says available -12.5, frozen 0.`,
    );
    expect((await post([{ cardId, availableAmount: '-12.5', frozenAmount: '0' }])).body.result).toBe('pass');
    expect(check(await getRun(sb, key, run.runId), 'ledger-agrees').result).toBe('pass');
  });

  it('is refused without a running run (400) and for a card of another account (4001), keeping nothing', async () => {
    const cardId = await newCard(sb, key, 10);
    const figuresOf = [{ cardId, availableAmount: '10', frozenAmount: '0' }];
    const noRun = await expectRefusedUnchanged(sb, 400, () => post(figuresOf));
    expect(noRun.body.message).toMatch(/^no readiness run of this account is running/);
    await startRun(sb, key, { windowSeconds: 60 });
    const stranger = await sb.account({ balance: 50 });
    const theirs = await newCard(sb, stranger.apiKey, 10);
    const foreign = await expectRefusedUnchanged(sb, 400, () =>
      post([...figuresOf, { cardId: theirs, availableAmount: '9.8', frozenAmount: '0' }]),
    );
    expect(foreign.body.code).toBe(4001);
    sb.wall.ms += 61_000;
    expect((await post(figuresOf)).body.message).toMatch(/^no readiness run of this account is running/);
  });

  it.each([
    [[], 'cards must hold at least 1 entries'],
    [
      [{ cardId: 'c', availableAmount: 10, frozenAmount: '0' }],
      'cards[0].availableAmount must be a decimal string with at most 6 decimal places, e.g. "-12.5"',
    ],
    [[{ cardId: 'c', availableAmount: '1e3', frozenAmount: '0' }], 'cards[0].availableAmount'],
    [[{ cardId: 'c', availableAmount: '1', frozenAmount: '-1' }], 'cards[0].frozenAmount'],
  ])('refuses cards %j with 400 naming the field', async (cards, message) => {
    await startRun(sb, key);
    const res = await post(cards);
    expect([res.status, res.body.code]).toEqual([400, 400]);
    expect(res.body.message).toContain(message);
  });
});
