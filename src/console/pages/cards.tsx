import { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { numberField } from '../format.js';
import {
  done,
  enc,
  failed,
  kept,
  loadAliases,
  operationKey,
  page,
  takeFlash,
  type ConsoleEnv,
  type Ctx,
} from '../page.js';
import { Field, OperationKey, Panel, PostForm } from '../ui.js';
import { cardRoutes } from './card.js';
import { CardTable, Pager } from './views.js';

// Cards: the table, the create form, and (mounted below) each card's page.

const PAGE_SIZE = 25;

/** New card: a button that opens the form (Amount, Alias), or the form itself. */
const NewCard: FC<{ open: boolean; csrf: string; values: Record<string, string> }> = ({ open, csrf, values }) => (
  <Panel id="h-new" title="New card">
    {open ? (
      <PostForm action="/console/cards" csrf={csrf} labelledBy="h-new" layout="row">
        <OperationKey />
        <Field
          id="create-amount"
          label="Amount"
          name="amount"
          value={values.amount}
          inputmode="decimal"
          hint="USDT debited from the wallet; the card gets it net of fees"
          required
        />
        <Field id="create-alias" label="Alias" name="alias" value={values.alias} hint="A label, optional" />
        <div class="actions">
          <button type="submit">Create</button>
          <a class="button secondary" href="/console/cards">
            Close
          </a>
        </div>
      </PostForm>
    ) : (
      <form method="get" action="/console/cards">
        <input type="hidden" name="new" value="1" />
        <button type="submit">Create card</button>
      </form>
    )}
  </Panel>
);

async function cardsPage(c: Ctx) {
  const flash = takeFlash(c);
  const list = await c.get('api').post('/v1/card/list', {});
  const cards = list.ok ? list.body.cardList : [];
  const totalPages = Math.max(1, Math.ceil(cards.length / PAGE_SIZE));
  const pageNumber = Math.min(Math.max(1, Number(c.req.query('page')) || 1), totalPages);
  const shown = cards.slice((pageNumber - 1) * PAGE_SIZE, pageNumber * PAGE_SIZE);
  const aliases = await loadAliases(
    c,
    shown.map((card) => card.cardId),
  );
  const open = c.req.query('new') === '1' || flash?.form === 'create';
  const body = (
    <>
      <NewCard open={open} csrf={c.get('session').csrf} values={kept(flash, 'create')} />
      <Panel id="h-all" title="All cards">
        <CardTable cards={shown} aliases={aliases} />
        {cards.length > PAGE_SIZE && (
          <Pager
            page={pageNumber}
            totalPages={totalPages}
            total={cards.length}
            href={(n) => `/console/cards?page=${n}`}
          />
        )}
      </Panel>
    </>
  );
  return page(c, { title: 'Cards', active: 'Cards', flash }, body);
}

async function createCard(c: Ctx) {
  const form = c.get('form');
  const alias = (form.alias ?? '').trim();
  const answer = await c
    .get('api')
    .post(
      '/v1/card/create',
      { amount: numberField(form.amount), currency: 'USDT', ...(alias ? { alias } : {}) },
      operationKey(c),
    );
  if (!answer.ok) return failed(c, '/console/cards', 'Card not created', answer, 'create');
  return done(c, `/console/cards/${enc(answer.body.cardId)}`, { title: `Card ${answer.body.maskedCardNo} created` });
}

/** Cards: the table and the create form, and each card's page below. */
export function cardsRoutes() {
  return new Hono<ConsoleEnv>().get('/', cardsPage).post('/', createCard).route('/:cardId', cardRoutes());
}
