import { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import type { Schema } from '../api.js';
import { belowZero, last4, money, numberField, topUpPreview } from '../format.js';
import {
  done,
  enc,
  failed,
  kept,
  notFound,
  operationKey,
  page,
  takeFlash,
  type ConsoleEnv,
  type Ctx,
} from '../page.js';
import { ActionButton, Badge, BelowZero, Field, OperationKey, Panel, PostForm, Time } from '../ui.js';
import { BillTable, Pager, type Bill } from './views.js';

// One card (/console/cards/:cardId): its state and balances, its actions, its details on demand, top-up with the
// fee shown first, and its transactions. Each action is one partner API call.

const TX_PAGE_SIZE = 20;

type Card = Schema<'api.card.detail.response'>;
type SensitiveInfo = Schema<'api.card.sensitiveInfo.response'>;

interface CardPageOptions {
  /** card/sensitiveInfo's answer, shown until the next page view. */
  details?: SensitiveInfo;
  /** The amount typed into Top up, awaiting confirmation with its fee and credit. */
  topUp?: string;
}

const live = (card: Card) => card.cardStatus !== 'CANCELLED' && card.cardStatus !== 'CANCELLING';

const CardSummary: FC<{ card: Card; base: string; csrf: string }> = ({ card, base, csrf }) => (
  <Panel
    id="h-card"
    title={
      <>
        <span>
          {card.alias || 'Card'} <span class="mono muted">•••• {last4(card.maskedCardNo)}</span>
        </span>
        <Badge value={card.cardStatus} />
      </>
    }
  >
    <dl class="props">
      <dt>Available</dt>
      <dd class="amount" data-testid="card-available">
        {money(card.availableBalance)} {card.currency} <BelowZero value={card.availableBalance} />
        {belowZero(card.availableBalance) && (
          <p class="hint" data-testid="card-debt">
            A clearing took this card below zero: it declines every authorisation until a top-up covers the debt (a
            top-up pays the debt first); cancelling it pays the debt from the USDT balance.
          </p>
        )}
      </dd>
      <dt>Held</dt>
      <dd class="amount">
        {money(card.frozenAmount)} {card.currency}
      </dd>
      <dt>Brand</dt>
      <dd>
        {card.cardBrand} · {card.bin.title}
      </dd>
      <dt>Card ID</dt>
      <dd class="mono">{card.cardId}</dd>
      <dt>Created</dt>
      <dd>
        <Time value={card.createdAt} />
      </dd>
    </dl>
    {live(card) && (
      <div class="actions">
        {card.cardStatus === 'FROZEN' ? (
          <ActionButton action={`${base}/unfreeze`} label="Unfreeze" csrf={csrf} kind="secondary" keyed />
        ) : (
          <ActionButton action={`${base}/freeze`} label="Freeze" csrf={csrf} kind="secondary" keyed />
        )}
        <ActionButton action={`${base}/cancel`} label="Cancel card" csrf={csrf} kind="danger" keyed />
      </div>
    )}
  </Panel>
);

const CardDetails: FC<{ card: Card; details?: SensitiveInfo; base: string; csrf: string }> = (p) => (
  <Panel id="h-secure" title="Card details">
    {p.details ? (
      <>
        <dl class="props" data-testid="card-details">
          <dt>Card number</dt>
          <dd class="mono">{p.details.cardNo.replace(/(\d{4})(?=\d)/g, '$1 ')}</dd>
          <dt>CVV</dt>
          <dd class="mono">{p.details.cvv}</dd>
          <dt>Expiry</dt>
          <dd class="mono">{p.details.expiryDate}</dd>
        </dl>
        <form method="get" action={p.base} class="actions">
          <button type="submit" class="secondary">
            Hide card details
          </button>
        </form>
      </>
    ) : (
      <>
        <p class="muted">The full number, CVV and expiry are fetched from the API only when you ask.</p>
        {p.card.cardStatus !== 'CANCELLED' && (
          <ActionButton action={`${p.base}/details`} label="Show card details" csrf={p.csrf} kind="secondary" />
        )}
      </>
    )}
  </Panel>
);

/** The amount, its fee and the card's credit, to confirm before any money moves. */
const TopUpConfirm: FC<{ amount: string; preview: { fee: string; credit: string }; base: string; csrf: string }> = (
  p,
) => (
  <PostForm action={`${p.base}/topup`} csrf={p.csrf} labelledBy="h-topup">
    <input type="hidden" name="amount" value={p.amount} />
    <input type="hidden" name="confirm" value="1" />
    <OperationKey />
    <dl class="preview" data-testid="topup-preview">
      <dt>Amount (USDT)</dt>
      <dd>{money(p.amount.trim())}</dd>
      <dt>Fee</dt>
      <dd>{p.preview.fee}</dd>
      <dt>Card credit (USD)</dt>
      <dd>
        <strong>{p.preview.credit}</strong>
      </dd>
    </dl>
    <div class="actions">
      <button type="submit">Confirm top up</button>
      <a class="button secondary" href={p.base}>
        Back
      </a>
    </div>
  </PostForm>
);

const TopUp: FC<{ card: Card; amount?: string; values: Record<string, string>; base: string; csrf: string }> = (p) => {
  const rate = p.card.bin.fee.deposit;
  const preview = p.amount !== undefined ? topUpPreview(p.amount, rate) : null;
  return (
    <Panel id="h-topup" title="Top up">
      {preview && p.amount !== undefined ? (
        <TopUpConfirm amount={p.amount} preview={preview} base={p.base} csrf={p.csrf} />
      ) : (
        <PostForm action={`${p.base}/topup`} csrf={p.csrf} labelledBy="h-topup" layout="row">
          <Field
            id="topup-amount"
            label="Amount"
            name="amount"
            value={p.values.amount}
            inputmode="decimal"
            hint={`USDT from the wallet; fee rate ${rate ?? '?'}, shown before you confirm`}
            required
          />
          <button type="submit">Top up</button>
        </PostForm>
      )}
    </Panel>
  );
};

/** The card's page; `opts` adds what a POST shows on it (its details, a top-up to confirm). */
async function cardPage(c: Ctx, opts: CardPageOptions = {}) {
  const api = c.get('api');
  const cardId = cardIdOf(c);
  const flash = takeFlash(c);
  const pageNumber = Math.max(1, Number(c.req.query('page')) || 1);
  const [detail, bills] = await Promise.all([
    api.post('/v1/card/detail', { cardId }),
    api.post('/v1/bill/list', { cardId, pageNumber, pageSize: TX_PAGE_SIZE }),
  ]);
  if (!detail.ok) return notFound(c, { title: 'Card', active: 'Cards', back: '/console/cards' }, 'Card', detail);
  const card = detail.body;
  const csrf = c.get('session').csrf;
  const base = `/console/cards/${enc(cardId)}`;
  const rows: readonly Bill[] = bills.ok ? bills.body.transactions : [];
  const body = (
    <>
      <div class="split">
        <CardSummary card={card} base={base} csrf={csrf} />
        <CardDetails card={card} details={opts.details} base={base} csrf={csrf} />
      </div>
      {live(card) && <TopUp card={card} amount={opts.topUp} values={kept(flash, 'topup')} base={base} csrf={csrf} />}
      <Panel id="h-tx" title="Transactions">
        <BillTable rows={rows} label="Card transactions" />
        {bills.ok && bills.body.totalPages > 1 && (
          <Pager
            page={pageNumber}
            totalPages={bills.body.totalPages}
            total={bills.body.totalElements}
            href={(n) => `${base}?page=${n}`}
          />
        )}
      </Panel>
    </>
  );
  return page(c, { title: card.alias || `Card ${card.maskedCardNo}`, active: 'Cards', flash }, body);
}

/** The card of the path this sub-app is mounted under (`/cards/:cardId`). */
const cardIdOf = (c: Ctx) => c.req.param('cardId') ?? '';
const cardUrl = (c: Ctx) => `/console/cards/${enc(cardIdOf(c))}`;

/** freeze, unfreeze, cancel: one call each, back to the card with its outcome. */
const lifecycle =
  (path: '/v1/card/freeze' | '/v1/card/unfreeze' | '/v1/card/cancel', ok: string, notOk: string) => async (c: Ctx) => {
    const answer = await c.get('api').post(path, { cardId: cardIdOf(c) }, operationKey(c));
    return answer.ok ? done(c, cardUrl(c), { title: ok }) : failed(c, cardUrl(c), notOk, answer);
  };

async function showDetails(c: Ctx) {
  const answer = await c.get('api').post('/v1/card/sensitiveInfo', { cardId: cardIdOf(c) });
  if (!answer.ok) return failed(c, cardUrl(c), 'Card details not available', answer);
  return cardPage(c, { details: answer.body });
}

async function topUp(c: Ctx) {
  const form = c.get('form');
  const amount = form.amount ?? '';
  // First submission: show fee and credit; only the confirmation moves money. An amount the preview cannot
  // read goes straight to the API, so the error the user sees is the API's own.
  if (form.confirm !== '1' && topUpPreview(amount, '0') !== null) return cardPage(c, { topUp: amount });
  const body = { cardId: cardIdOf(c), amount: numberField(amount), currency: 'USDT' } as const;
  const answer = await c.get('api').post('/v1/card/deposit', body, operationKey(c));
  if (!answer.ok) return failed(c, cardUrl(c), 'Top-up refused', answer, 'topup');
  return done(c, cardUrl(c), {
    title: `Top-up of ${money(amount.trim())} USDT accepted: the card is credited once it settles`,
  });
}

/** One card's page and its actions, mounted at `/cards/:cardId`. */
export function cardRoutes() {
  return new Hono<ConsoleEnv>()
    .get('/', (c) => cardPage(c))
    .post('/freeze', lifecycle('/v1/card/freeze', 'Card frozen', 'Card not frozen'))
    .post('/unfreeze', lifecycle('/v1/card/unfreeze', 'Card unfrozen', 'Card not unfrozen'))
    .post('/cancel', lifecycle('/v1/card/cancel', 'Card cancellation started', 'Card not cancelled'))
    .post('/details', showDetails)
    .post('/topup', topUp);
}
