import { Hono } from 'hono';
import { last4 } from '../../format.js';
import { kept, page, takeFlash, type ConsoleEnv, type Ctx } from '../../page.js';
import { cardOption } from '../views.js';
import { AdvanceClock, advanceClock } from './clock.js';
import { DepositOnChain, depositOnChain } from './deposit.js';
import { Faults, releaseHeld, removeFaults, setFaults } from './faults.js';
import { Inventory, inventory } from './inventory.js';
import { Purchase, purchase } from './purchase.js';
import {
  ClearAmount,
  clearAmount,
  ForcePost,
  forcePost,
  Increment,
  increment,
  PartialReversal,
  pendingOptions,
  GoodwillCredit,
  goodwillCredit,
  reversePart,
} from './network.js';
import { ThreeDSChallenge, threeDSChallenge } from './three-ds.js';
import { startTraffic, stopTraffic, Traffic } from './traffic.js';
import { CardTransactions, clear, latestByTransaction, RECENT_TRANSACTIONS, refund, reverse } from './transactions.js';

// Simulate: the simulation API (/sandbox/v1) behind one form each, the transactions still to settle, the card
// network's hard cases and traffic. Each form is a component with its handler, in a module of its own; this page lays
// them out.

/** What the forms show: the cards and BINs to choose from, the deposits seen, the transactions to settle. */
async function simulationState(c: Ctx) {
  const api = c.get('api');
  const [cards, bins, deposits, created, updated, traffic] = await Promise.all([
    api.post('/v1/card/list', {}),
    api.post('/v1/card/binList', {}),
    api.post('/sandbox/v1/chain/deposits', {}),
    api.post('/sandbox/v1/events', { type: 'transaction.created', limit: RECENT_TRANSACTIONS * 3 }),
    api.post('/sandbox/v1/events', { type: 'transaction.updated', limit: RECENT_TRANSACTIONS * 3 }),
    api.post('/sandbox/v1/traffic/list', {}),
  ]);
  const cardList = cards.ok ? cards.body.cardList : [];
  const aliases = c.get('aliases');
  return {
    cardOptions: cardList.filter((card) => card.cardStatus !== 'CANCELLED').map((card) => cardOption(card, aliases)),
    last4Of: new Map(cardList.map((card) => [card.cardId, last4(card.maskedCardNo)])),
    binOptions: (bins.ok ? bins.body.availableCardBinList : []).map((b) => [b.id, `${b.title} (${b.id})`] as const),
    deposits: deposits.ok ? deposits.body.deposits : [],
    transactions: latestByTransaction([
      ...(updated.ok ? updated.body.events : []),
      ...(created.ok ? created.body.events : []),
    ]),
    trafficRuns: traffic.ok ? traffic.body.runs : [],
  };
}

async function simulatePage(c: Ctx) {
  const flash = takeFlash(c);
  const csrf = c.get('session').csrf;
  const s = await simulationState(c);
  const form = (name: string) => ({ csrf, values: kept(flash, name) });
  const pending = pendingOptions(s.transactions);
  const body = (
    <>
      <div class="split">
        <DepositOnChain {...form('deposit')} deposits={s.deposits} />
        <Purchase {...form('purchase')} cards={s.cardOptions} />
      </div>
      <CardTransactions transactions={s.transactions} last4Of={s.last4Of} csrf={csrf} />
      <div class="split">
        <Increment {...form('increment')} pending={pending} />
        <PartialReversal {...form('reverse-part')} pending={pending} />
      </div>
      <div class="split">
        <ClearAmount {...form('clear-amount')} pending={pending} />
        <ForcePost {...form('force-post')} cards={s.cardOptions} />
      </div>
      <div class="split">
        <GoodwillCredit {...form('goodwill')} cards={s.cardOptions} />
        <Traffic {...form('traffic')} cards={s.cardOptions} runs={s.trafficRuns} />
      </div>
      <div class="split">
        <ThreeDSChallenge {...form('3ds')} cards={s.cardOptions} />
        <AdvanceClock {...form('clock')} />
      </div>
      <div class="split">
        <Inventory {...form('inventory')} bins={s.binOptions} />
        <Faults {...form('faults')} />
      </div>
    </>
  );
  return page(c, { title: 'Simulate', active: 'Simulate', flash }, body);
}

export function simulateRoutes() {
  return new Hono<ConsoleEnv>()
    .get('/', simulatePage)
    .post('/deposit', depositOnChain)
    .post('/purchase', purchase)
    .post('/clear', clear)
    .post('/reverse', reverse)
    .post('/refund', refund)
    .post('/increment', increment)
    .post('/reverse-part', reversePart)
    .post('/clear-amount', clearAmount)
    .post('/force-post', forcePost)
    .post('/goodwill', goodwillCredit)
    .post('/traffic', startTraffic)
    .post('/traffic/stop', stopTraffic)
    .post('/3ds', threeDSChallenge)
    .post('/clock', advanceClock)
    .post('/inventory', inventory)
    .post('/faults', setFaults)
    .post('/faults/release', releaseHeld)
    .post('/faults/clear', removeFaults);
}
