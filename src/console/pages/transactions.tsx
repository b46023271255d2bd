import { Hono } from 'hono';
import { last4 } from '../format.js';
import { enc, errorFlash, loadAliases, page, takeFlash, type ConsoleEnv } from '../page.js';
import { Select } from '../ui.js';
import { BillTable, Pager, type CardRow } from './views.js';

const PAGE_SIZE = 20;

/** Transactions: bill/list, paged, for the account or one card. */
export function transactionRoutes() {
  return new Hono<ConsoleEnv>().get('/', async (c) => {
    const api = c.get('api');
    const cardId = c.req.query('card') || undefined;
    const pageNumber = Math.max(1, Number(c.req.query('page')) || 1);
    const [cards, bills] = await Promise.all([
      api.post('/v1/card/list', {}),
      api.post('/v1/bill/list', { pageNumber, pageSize: PAGE_SIZE, ...(cardId ? { cardId } : {}) }),
    ]);
    const cardList: CardRow[] = cards.body.cardList ?? [];
    const aliases = await loadAliases(
      c,
      cardList.map((card) => card.cardId),
    );
    const options: [string, string][] = [
      ['', 'All cards'],
      ...cardList.map((card): [string, string] => [
        card.cardId,
        `${aliases.get(card.cardId) ?? 'Card'} •••• ${last4(card.maskedCardNo)}`,
      ]),
    ];
    const flash = bills.ok ? takeFlash(c) : errorFlash('Transactions not available', bills);
    const body = (
      <section class="panel" aria-labelledby="h-list">
        <h2 id="h-list">{bills.ok ? `${bills.body.totalElements} transactions` : 'Transactions'}</h2>
        <form method="get" action="/console/transactions" class="row" aria-label="Filter transactions">
          <Select id="filter-card" label="Card" name="card" value={cardId} options={options} />
          <button type="submit" class="secondary">
            Filter
          </button>
        </form>
        <h3 class="muted">Newest first</h3>
        <BillTable rows={bills.body.transactions ?? []} label="Transactions" />
        {bills.ok && (
          <Pager
            page={pageNumber}
            totalPages={bills.body.totalPages}
            total={bills.body.totalElements}
            href={(n) => `/console/transactions?page=${n}${cardId ? `&card=${enc(cardId)}` : ''}`}
          />
        )}
      </section>
    );
    return page(c, { title: 'Transactions', active: 'Transactions', flash }, body);
  });
}
