import { Hono } from 'hono';
import { binView, listBins } from '../domain/bins.js';
import { deriveCardData } from '../domain/card-data.js';
import {
  CARD_STATUSES,
  cancelCard,
  createCard,
  depositToCard,
  getOwnedCard,
  listCards,
  setFrozen,
} from '../domain/cards.js';
import { getBin } from '../domain/bins.js';
import type { ServerDeps } from '../server-deps.js';
import { caughtUpNow } from '../http/command.js';
import type { AppEnv } from '../http/context.js';
import { echoIdempotencyKey, idempotent } from '../http/idempotency.js';
import { readJsonObject } from '../http/middleware/json-body.js';
import { optionalEnum, optionalString, requiredAmount, requiredEnum, requiredString } from '../http/validate.js';
import { OK, cardAssetView, cardCreatedView, cardDetailView, cardListViews } from './views.js';
import { DomainError } from '../domain/errors.js';

const CURRENCIES = ['USDT'] as const;

export function cardRoutes(deps: ServerDeps) {
  const echo = echoIdempotencyKey();
  return new Hono<AppEnv>()
    .use('/create', echo)
    .use('/deposit', echo)
    .use('/freeze', echo)
    .use('/unfreeze', echo)
    .use('/cancel', echo)
    .post('/binList', async (c) => {
      await readJsonObject(c);
      const rate = c.get('account').depositFeeRatePpm;
      return c.json({ ...OK, availableCardBinList: listBins(deps.db).map((b) => binView(b, rate)) });
    })
    .post('/create', async (c) => {
      const body = await readJsonObject(c);
      const amountMicros = requiredAmount(body, 'amount');
      requiredEnum(body, 'currency', CURRENCIES);
      const binId = optionalString(body, 'binId');
      const alias = optionalString(body, 'alias');
      const account = c.get('account');
      return idempotent(c, deps, 'card/create', body, (now) =>
        cardCreatedView(deps, createCard(deps, account, { amountMicros, binId, alias }, now)),
      );
    })
    .post('/list', async (c) => {
      const body = await readJsonObject(c);
      const status = optionalEnum(body, 'status', CARD_STATUSES);
      caughtUpNow(c, deps);
      const cards = listCards(deps, c.get('account').id, status);
      return c.json({ cardList: cardListViews(deps, cards) });
    })
    .post('/detail', async (c) => {
      const body = await readJsonObject(c);
      const account = c.get('account');
      const cardId = requiredString(body, 'cardId');
      caughtUpNow(c, deps);
      return c.json(cardDetailView(deps, account, getOwnedCard(deps, account.id, cardId)));
    })
    .post('/asset', async (c) => {
      const body = await readJsonObject(c);
      const cardId = requiredString(body, 'cardId');
      caughtUpNow(c, deps);
      return c.json(cardAssetView(deps, getOwnedCard(deps, c.get('account').id, cardId)));
    })
    .post('/sensitiveInfo', async (c) => {
      const body = await readJsonObject(c);
      const cardId = requiredString(body, 'cardId');
      caughtUpNow(c, deps);
      const card = getOwnedCard(deps, c.get('account').id, cardId);
      if (card.status === 'CANCELLED') throw new DomainError('CARD_CANCELLED');
      const bin = getBin(deps.db, card.binId);
      // Cardholder data: derived here, returned once, never logged or stored.
      return c.json(deriveCardData(deps.secret, card.id, bin.bin, card.createdAtMs));
    })
    .post('/deposit', async (c) => {
      const body = await readJsonObject(c);
      const cardId = requiredString(body, 'cardId');
      const amountMicros = requiredAmount(body, 'amount');
      optionalEnum(body, 'currency', CURRENCIES);
      const account = c.get('account');
      return idempotent(c, deps, 'card/deposit', body, (now) => {
        depositToCard(deps, account, cardId, amountMicros, now);
        return OK;
      });
    })
    .post('/freeze', async (c) => {
      const body = await readJsonObject(c);
      const cardId = requiredString(body, 'cardId');
      return idempotent(c, deps, 'card/freeze', body, (now) => {
        setFrozen(deps, c.get('account').id, cardId, true, now);
        return OK;
      });
    })
    .post('/unfreeze', async (c) => {
      const body = await readJsonObject(c);
      const cardId = requiredString(body, 'cardId');
      return idempotent(c, deps, 'card/unfreeze', body, (now) => {
        setFrozen(deps, c.get('account').id, cardId, false, now);
        return OK;
      });
    })
    .post('/cancel', async (c) => {
      const body = await readJsonObject(c);
      const cardId = requiredString(body, 'cardId');
      return idempotent(c, deps, 'card/cancel', body, (now) => {
        cancelCard(deps, c.get('account').id, cardId, now);
        return OK;
      });
    });
}
