import { binView, getBin, listBins } from '../domain/cards/bins.js';
import { deriveCardData } from '../domain/cards/card-data.js';
import { cancelCard, createCard, depositToCard, getOwnedCard, listCards, setFrozen } from '../domain/cards/cards.js';
import { DomainError } from '../domain/kernel/errors.js';
import { caughtUpNow } from '../http/account-clock.js';
import { prepare, type Handlers } from '../http/router.js';
import { microsOf } from '../http/amounts.js';
import type { ServerDeps } from '../http/server-deps.js';
import { OK } from '../http/envelope.js';
import { cardAssetView, cardCreatedView, cardDetailView, cardListViews } from './views.js';

/** A command on one card, named by the body's cardId. */
const onCard = (run: (deps: ServerDeps, accountId: string, cardId: string, nowMs: number) => Promise<void>) =>
  prepare((c, body: { cardId: string }) => {
    const accountId = c.get('account').id;
    const cardId = body.cardId;
    return async (deps, now) => (await run(deps, accountId, cardId, now), OK);
  });

/**
 * /v1/card. The writes prepare commands: whether they run under an Idempotency-Key (spec "Idempotency") is their
 * contract entry's `idempotent`. Their bodies reach them checked (the route's body step answers a bad one 400), and
 * the key's echo on those 400s is the idempotency step's.
 */
export function cardHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /v1/card/binList': async (c) => {
      const rate = c.get('account').depositFeeRatePpm;
      return c.json({ ...OK, availableCardBinList: (await listBins(deps)).map((b) => binView(b, rate)) });
    },
    'POST /v1/card/list': async (c, body) => {
      const status = body.status;
      await caughtUpNow(c, deps);
      const cards = await listCards(deps, c.get('account').id, status);
      return c.json({ cardList: await cardListViews(deps, cards) });
    },
    'POST /v1/card/detail': async (c, body) => {
      const account = c.get('account');
      const cardId = body.cardId;
      await caughtUpNow(c, deps);
      return c.json(await cardDetailView(deps, account, await getOwnedCard(deps, account.id, cardId)));
    },
    'POST /v1/card/asset': async (c, body) => {
      const cardId = body.cardId;
      await caughtUpNow(c, deps);
      return c.json(await cardAssetView(deps, await getOwnedCard(deps, c.get('account').id, cardId)));
    },
    'POST /v1/card/sensitiveInfo': async (c, body) => {
      const cardId = body.cardId;
      await caughtUpNow(c, deps);
      const card = await getOwnedCard(deps, c.get('account').id, cardId);
      if (card.status === 'CANCELLED') throw new DomainError('CARD_CANCELLED');
      const bin = await getBin(deps, card.binId);
      // Cardholder data: derived here, returned once, never logged or stored.
      return c.json(deriveCardData(deps.secret, card, bin.bin));
    },
    'POST /v1/card/create': prepare((c, body) => {
      const amountMicros = microsOf(body.amount);
      const input = { amountMicros, binId: body.binId, alias: body.alias };
      const account = c.get('account');
      return async (deps, now) => cardCreatedView(await createCard(deps, account, input, now));
    }),
    'POST /v1/card/deposit': prepare((c, body) => {
      const cardId = body.cardId;
      const amountMicros = microsOf(body.amount);
      const account = c.get('account');
      return async (deps, now) => (await depositToCard(deps, account, cardId, amountMicros, now), OK);
    }),
    'POST /v1/card/freeze': onCard(
      async (deps, accountId, cardId, now) => await setFrozen(deps, accountId, cardId, true, now),
    ),
    'POST /v1/card/unfreeze': onCard(
      async (deps, accountId, cardId, now) => await setFrozen(deps, accountId, cardId, false, now),
    ),
    'POST /v1/card/cancel': onCard(
      async (deps, accountId, cardId, now) => await cancelCard(deps, accountId, cardId, now),
    ),
  };
}
