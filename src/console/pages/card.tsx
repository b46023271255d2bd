import type { Hono } from 'hono';
import { last4, money, numberField, topUpPreview } from '../format.js';
import { done, enc, errorFlash, failed, kept, page, takeFlash, type ConsoleEnv, type Ctx } from '../page.js';
import { ActionButton, Badge, Csrf, Field, Time } from '../ui.js';
import { BillTable, Pager } from './views.js';

const TX_PAGE_SIZE = 20;

interface CardPageOptions {
  /** card/sensitiveInfo's answer, shown until the next page view. */
  details?: { cardNo: string; cvv: string; expiryDate: string };
  /** The amount typed into Top up, awaiting confirmation with its fee and credit. */
  topUp?: string;
}

/** One card: its state and balances, its actions, and its transactions. */
export async function cardPage(c: Ctx, cardId: string, opts: CardPageOptions = {}) {
  const api = c.get('api');
  const flash = takeFlash(c);
  const pageNumber = Math.max(1, Number(c.req.query('page')) || 1);
  const [detail, bills] = await Promise.all([
    api.post('/v1/card/detail', { cardId }),
    api.post('/v1/bill/list', { cardId, pageNumber, pageSize: TX_PAGE_SIZE }),
  ]);
  if (!detail.ok) {
    return page(
      c,
      { title: 'Card', active: 'Cards', flash: errorFlash('Card not found', detail), status: 404 },
      <p>
        <a href="/console/cards">Back</a>
      </p>,
    );
  }
  const card = detail.body;
  const csrf = c.get('session').csrf;
  const base = `/console/cards/${enc(cardId)}`;
  const live = card.cardStatus !== 'CANCELLED' && card.cardStatus !== 'CANCELLING';
  const preview = opts.topUp !== undefined ? topUpPreview(opts.topUp, card.bin?.fee?.deposit) : null;
  const topUpValues = kept(flash, 'topup');
  const body = (
    <>
      <div class="split">
        <section class="panel" aria-labelledby="h-card">
          <h2 id="h-card">
            <span>
              {card.alias || 'Card'} <span class="mono muted">•••• {last4(card.maskedCardNo)}</span>
            </span>
            <Badge value={card.cardStatus} />
          </h2>
          <dl class="props">
            <dt>Available</dt>
            <dd class="amount" data-testid="card-available">
              {money(card.availableBalance)} {card.currency}
            </dd>
            <dt>Held</dt>
            <dd class="amount">
              {money(card.frozenAmount)} {card.currency}
            </dd>
            <dt>Brand</dt>
            <dd>
              {card.cardBrand} · {card.bin?.title}
            </dd>
            <dt>Card ID</dt>
            <dd class="mono">{card.cardId}</dd>
            <dt>Created</dt>
            <dd>
              <Time value={card.createdAt} />
            </dd>
          </dl>
          {live && (
            <div class="actions">
              {card.cardStatus === 'FROZEN' ? (
                <ActionButton action={`${base}/unfreeze`} label="Unfreeze" csrf={csrf} kind="secondary" />
              ) : (
                <ActionButton action={`${base}/freeze`} label="Freeze" csrf={csrf} kind="secondary" />
              )}
              <ActionButton action={`${base}/cancel`} label="Cancel card" csrf={csrf} kind="danger" />
            </div>
          )}
        </section>
        <section class="panel" aria-labelledby="h-secure">
          <h2 id="h-secure">Card details</h2>
          {opts.details ? (
            <>
              <dl class="props" data-testid="card-details">
                <dt>Card number</dt>
                <dd class="mono">{opts.details.cardNo.replace(/(\d{4})(?=\d)/g, '$1 ')}</dd>
                <dt>CVV</dt>
                <dd class="mono">{opts.details.cvv}</dd>
                <dt>Expiry</dt>
                <dd class="mono">{opts.details.expiryDate}</dd>
              </dl>
              <form method="get" action={base} class="actions">
                <button type="submit" class="secondary">
                  Hide card details
                </button>
              </form>
            </>
          ) : (
            <>
              <p class="muted">The full number, CVV and expiry are fetched from the API only when you ask.</p>
              {card.cardStatus !== 'CANCELLED' && (
                <ActionButton action={`${base}/details`} label="Show card details" csrf={csrf} kind="secondary" />
              )}
            </>
          )}
        </section>
      </div>
      {live && (
        <section class="panel" aria-labelledby="h-topup">
          <h2 id="h-topup">Top up</h2>
          {preview && opts.topUp !== undefined ? (
            <form method="post" action={`${base}/topup`} aria-labelledby="h-topup">
              <Csrf token={csrf} />
              <input type="hidden" name="amount" value={opts.topUp} />
              <input type="hidden" name="confirm" value="1" />
              <dl class="preview" data-testid="topup-preview">
                <dt>Amount (USDT)</dt>
                <dd>{money(opts.topUp.trim())}</dd>
                <dt>Fee</dt>
                <dd>{preview.fee}</dd>
                <dt>Card credit (USD)</dt>
                <dd>
                  <strong>{preview.credit}</strong>
                </dd>
              </dl>
              <div class="actions">
                <button type="submit">Confirm top up</button>
                <a class="button secondary" href={base}>
                  Back
                </a>
              </div>
            </form>
          ) : (
            <form method="post" action={`${base}/topup`} class="row" aria-labelledby="h-topup">
              <Csrf token={csrf} />
              <Field
                id="topup-amount"
                label="Amount"
                name="amount"
                value={topUpValues.amount}
                inputmode="decimal"
                hint={`USDT from the wallet; fee rate ${card.bin?.fee?.deposit ?? '?'}, shown before you confirm`}
                required
              />
              <button type="submit">Top up</button>
            </form>
          )}
        </section>
      )}
      <section class="panel" aria-labelledby="h-tx">
        <h2 id="h-tx">Transactions</h2>
        <BillTable rows={bills.body.transactions ?? []} label="Card transactions" />
        {bills.ok && bills.body.totalPages > 1 && (
          <Pager
            page={pageNumber}
            totalPages={bills.body.totalPages}
            total={bills.body.totalElements}
            href={(n) => `${base}?page=${n}`}
          />
        )}
      </section>
    </>
  );
  return page(c, { title: card.alias || `Card ${card.maskedCardNo}`, active: 'Cards', flash }, body);
}

const ACTIONS = [
  ['freeze', '/v1/card/freeze', 'Card frozen', 'Card not frozen'],
  ['unfreeze', '/v1/card/unfreeze', 'Card unfrozen', 'Card not unfrozen'],
  ['cancel', '/v1/card/cancel', 'Card cancellation started', 'Card not cancelled'],
] as const;

/** The card page's POST actions, each one partner API call. */
export function cardActions(app: Hono<ConsoleEnv>) {
  for (const [name, path, ok, notOk] of ACTIONS) {
    app.post(`/:cardId/${name}`, async (c) => {
      const cardId = c.req.param('cardId');
      const to = `/console/cards/${enc(cardId)}`;
      const answer = await c.get('api').post(path, { cardId });
      return answer.ok ? done(c, to, { title: ok }) : failed(c, to, notOk, answer);
    });
  }
  app.post('/:cardId/details', async (c) => {
    const cardId = c.req.param('cardId');
    const answer = await c.get('api').post('/v1/card/sensitiveInfo', { cardId });
    if (!answer.ok) return failed(c, `/console/cards/${enc(cardId)}`, 'Card details not available', answer);
    return cardPage(c, cardId, { details: answer.body });
  });
  app.post('/:cardId/topup', async (c) => {
    const cardId = c.req.param('cardId');
    const to = `/console/cards/${enc(cardId)}`;
    const form = c.get('form');
    const amount = form.amount ?? '';
    // First submission: show fee and credit; only the confirmation moves money. An amount the preview cannot
    // read goes straight to the API, so the error the user sees is the API's own.
    if (form.confirm !== '1' && topUpPreview(amount, '0') !== null) return cardPage(c, cardId, { topUp: amount });
    const answer = await c
      .get('api')
      .post('/v1/card/deposit', { cardId, amount: numberField(amount), currency: 'USDT' });
    if (!answer.ok) return failed(c, to, 'Top-up refused', answer, 'topup');
    return done(c, to, {
      title: `Top-up of ${money(amount.trim())} USDT accepted: the card is credited once it settles`,
    });
  });
}
