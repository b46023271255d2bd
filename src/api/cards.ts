import { Hono, type Context } from 'hono';
import { binView, getBin, listBins } from '../domain/bins.js';
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
import { DomainError } from '../domain/errors.js';
import { caughtUpNow } from '../http/command.js';
import type { AppEnv } from '../http/context.js';
import { keyed, type KeyedCommand } from '../http/keyed.js';
import { readJsonObject } from '../http/middleware/json-body.js';
import { optionalEnum, optionalString, requiredAmount, requiredEnum, requiredString } from '../http/validate.js';
import type { ServerDeps } from '../server-deps.js';
import { OK } from '../http/envelope.js';
import { cardAssetView, cardCreatedView, cardDetailView, cardListViews } from './views.js';

const CURRENCIES = ['USDT'] as const;

/** The keyed endpoints of /v1/card (spec "Idempotency"), declared once: routes and faults both read this. */
const KEYED = ['create', 'deposit', 'freeze', 'unfreeze', 'cancel'] as const;
export const KEYED_CARD_PATHS: ReadonlySet<string> = new Set(KEYED.map((name) => `/v1/card/${name}`));

type Prepare = (c: Context<AppEnv>) => Promise<KeyedCommand>;

/** Each keyed endpoint: validate the body (400 before any key logic), then the command the runner runs once. */
function keyedCommands(deps: ServerDeps): Record<(typeof KEYED)[number], Prepare> {
  const onCard =
    (command: (accountId: string, cardId: string, nowMs: number) => void): Prepare =>
    async (c) => {
      const body = await readJsonObject(c);
      const cardId = requiredString(body, 'cardId');
      return { body, run: (now) => (command(c.get('account').id, cardId, now), OK) };
    };
  return {
    create: async (c) => {
      const body = await readJsonObject(c);
      const amountMicros = requiredAmount(body, 'amount');
      requiredEnum(body, 'currency', CURRENCIES);
      const input = { amountMicros, binId: optionalString(body, 'binId'), alias: optionalString(body, 'alias') };
      return { body, run: (now) => cardCreatedView(deps, createCard(deps, c.get('account'), input, now)) };
    },
    deposit: async (c) => {
      const body = await readJsonObject(c);
      const cardId = requiredString(body, 'cardId');
      const amountMicros = requiredAmount(body, 'amount');
      optionalEnum(body, 'currency', CURRENCIES);
      return { body, run: (now) => (depositToCard(deps, c.get('account'), cardId, amountMicros, now), OK) };
    },
    freeze: onCard((accountId, cardId, now) => setFrozen(deps, accountId, cardId, true, now)),
    unfreeze: onCard((accountId, cardId, now) => setFrozen(deps, accountId, cardId, false, now)),
    cancel: onCard((accountId, cardId, now) => cancelCard(deps, accountId, cardId, now)),
  };
}

export function cardRoutes(deps: ServerDeps) {
  const routes = new Hono<AppEnv>()
    .post('/binList', async (c) => {
      await readJsonObject(c);
      const rate = c.get('account').depositFeeRatePpm;
      return c.json({ ...OK, availableCardBinList: listBins(deps.db).map((b) => binView(b, rate)) });
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
    });
  for (const [name, prepare] of Object.entries(keyedCommands(deps))) keyed(routes, deps, `card/${name}`, prepare);
  return routes;
}
