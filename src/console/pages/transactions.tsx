import { Hono } from 'hono';
import { enc, errorFlash, loadAliases, page, takeFlash, type ConsoleEnv, type Ctx } from '../page.js';
import { FilterForm, Panel, Select } from '../ui.js';
import { BillTable, cardOption, Pager } from './views.js';

// Transactions: bill/list, paged, for the account or one card.

const PAGE_SIZE = 20;

async function transactionsPage(c: Ctx) {
  const api = c.get('api');
  const cardId = c.req.query('card') || undefined;
  const pageNumber = Math.max(1, Number(c.req.query('page')) || 1);
  const [cards, bills] = await Promise.all([
    api.post('/v1/card/list', {}),
    api.post('/v1/bill/list', { pageNumber, pageSize: PAGE_SIZE, ...(cardId ? { cardId } : {}) }),
  ]);
  const cardList = cards.ok ? cards.body.cardList : [];
  const aliases = await loadAliases(
    c,
    cardList.map((card) => card.cardId),
  );
  const options = [['', 'All cards'] as const, ...cardList.map((card) => cardOption(card, aliases))];
  const flash = bills.ok ? takeFlash(c) : errorFlash('Transactions not available', bills);
  const body = (
    <Panel id="h-list" title={bills.ok ? `${bills.body.totalElements} transactions` : 'Transactions'}>
      <FilterForm action="/console/transactions" label="Filter transactions">
        <Select id="filter-card" label="Card" name="card" value={cardId} options={options} />
      </FilterForm>
      <h3 class="muted">Newest first</h3>
      <BillTable rows={bills.ok ? bills.body.transactions : []} label="Transactions" />
      {bills.ok && (
        <Pager
          page={pageNumber}
          totalPages={bills.body.totalPages}
          total={bills.body.totalElements}
          href={(n) => `/console/transactions?page=${n}${cardId ? `&card=${enc(cardId)}` : ''}`}
        />
      )}
    </Panel>
  );
  return page(c, { title: 'Transactions', active: 'Transactions', flash }, body);
}

/** Transactions: bill/list, paged, for the account or one card. */
export function transactionRoutes() {
  return new Hono<ConsoleEnv>().get('/', transactionsPage);
}
