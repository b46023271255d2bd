import { binView, getBin, listBins } from '../domain/cards/bins.js';
import { deriveCardData } from '../domain/cards/card-data.js';
import {
  CARD_STATUSES,
  cancelCard,
  createCard,
  depositToCard,
  getOwnedCard,
  listCards,
  setFrozen,
} from '../domain/cards/cards.js';
import { DomainError } from '../domain/kernel/errors.js';
import { catchUp } from '../http/command.js';
import { command, type Handlers } from '../http/router.js';
import { optionalEnum, optionalString, requiredAmount, requiredEnum, requiredString } from '../http/validate.js';
import type { ServerDeps } from '../http/server-deps.js';
import { OK } from '../http/envelope.js';
import { cardAssetView, cardCreatedView, cardDetailView, cardListViews } from './views.js';

const CURRENCIES = ['USDT'] as const;

/** A command on one card, named by the body's cardId. */
const onCard = (run: (accountId: string, cardId: string, nowMs: number) => void) =>
  command((c, body) => {
    const accountId = c.get('account').id;
    const cardId = requiredString(body, 'cardId');
    return (now) => (run(accountId, cardId, now), OK);
  });

/**
 * /v1/card. The writes are commands: whether they run under an Idempotency-Key (spec "Idempotency") is their
 * contract entry's `idempotent`, and each validates its body (400) before any key logic.
 */
export function cardHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /v1/card/binList': (c) => {
      const rate = c.get('account').depositFeeRatePpm;
      return c.json({ ...OK, availableCardBinList: listBins(deps).map((b) => binView(b, rate)) });
    },
    'POST /v1/card/list': (c, body) => {
      const status = optionalEnum(body, 'status', CARD_STATUSES);
      catchUp(c, deps);
      const cards = listCards(deps, c.get('account').id, status);
      return c.json({ cardList: cardListViews(deps, cards) });
    },
    'POST /v1/card/detail': (c, body) => {
      const account = c.get('account');
      const cardId = requiredString(body, 'cardId');
      catchUp(c, deps);
      return c.json(cardDetailView(deps, account, getOwnedCard(deps, account.id, cardId)));
    },
    'POST /v1/card/asset': (c, body) => {
      const cardId = requiredString(body, 'cardId');
      catchUp(c, deps);
      return c.json(cardAssetView(deps, getOwnedCard(deps, c.get('account').id, cardId)));
    },
    'POST /v1/card/sensitiveInfo': (c, body) => {
      const cardId = requiredString(body, 'cardId');
      catchUp(c, deps);
      const card = getOwnedCard(deps, c.get('account').id, cardId);
      if (card.status === 'CANCELLED') throw new DomainError('CARD_CANCELLED');
      const bin = getBin(deps, card.binId);
      // Cardholder data: derived here, returned once, never logged or stored.
      return c.json(deriveCardData(deps.secret, card, bin.bin));
    },
    'POST /v1/card/create': command((c, body) => {
      const amountMicros = requiredAmount(body, 'amount');
      requiredEnum(body, 'currency', CURRENCIES);
      const input = { amountMicros, binId: optionalString(body, 'binId'), alias: optionalString(body, 'alias') };
      const account = c.get('account');
      return (now) => cardCreatedView(deps, createCard(deps, account, input, now));
    }),
    'POST /v1/card/deposit': command((c, body) => {
      const cardId = requiredString(body, 'cardId');
      const amountMicros = requiredAmount(body, 'amount');
      optionalEnum(body, 'currency', CURRENCIES);
      const account = c.get('account');
      return (now) => (depositToCard(deps, account, cardId, amountMicros, now), OK);
    }),
    'POST /v1/card/freeze': onCard((accountId, cardId, now) => setFrozen(deps, accountId, cardId, true, now)),
    'POST /v1/card/unfreeze': onCard((accountId, cardId, now) => setFrozen(deps, accountId, cardId, false, now)),
    'POST /v1/card/cancel': onCard((accountId, cardId, now) => cancelCard(deps, accountId, cardId, now)),
  };
}
