import { Hono } from 'hono';
import { numberField } from '../format.js';
import { done, enc, failed, kept, loadAliases, page, takeFlash, type ConsoleEnv } from '../page.js';
import { Csrf, Field } from '../ui.js';
import { cardPage, cardActions } from './card.js';
import { CardTable, Pager, type CardRow } from './views.js';

const PAGE_SIZE = 25;

/** Cards: the table, the create form, and each card's page. */
export function cardRoutes() {
  const app = new Hono<ConsoleEnv>()
    .get('/', async (c) => {
      const flash = takeFlash(c);
      const values = kept(flash, 'create');
      const open = c.req.query('new') === '1' || flash?.form === 'create';
      const list = await c.get('api').post('/v1/card/list', {});
      const cards: CardRow[] = list.body.cardList ?? [];
      const totalPages = Math.max(1, Math.ceil(cards.length / PAGE_SIZE));
      const pageNumber = Math.min(Math.max(1, Number(c.req.query('page')) || 1), totalPages);
      const shown = cards.slice((pageNumber - 1) * PAGE_SIZE, pageNumber * PAGE_SIZE);
      const aliases = await loadAliases(
        c,
        shown.map((card) => card.cardId),
      );
      const body = (
        <>
          <section class="panel" aria-labelledby="h-new">
            <h2 id="h-new">New card</h2>
            {open ? (
              <form method="post" action="/console/cards" class="row" aria-labelledby="h-new">
                <Csrf token={c.get('session').csrf} />
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
              </form>
            ) : (
              <form method="get" action="/console/cards">
                <input type="hidden" name="new" value="1" />
                <button type="submit">Create card</button>
              </form>
            )}
          </section>
          <section class="panel" aria-labelledby="h-all">
            <h2 id="h-all">All cards</h2>
            <CardTable cards={shown} aliases={aliases} />
            {cards.length > PAGE_SIZE && (
              <Pager
                page={pageNumber}
                totalPages={totalPages}
                total={cards.length}
                href={(n) => `/console/cards?page=${n}`}
              />
            )}
          </section>
        </>
      );
      return page(c, { title: 'Cards', active: 'Cards', flash }, body);
    })
    .post('/', async (c) => {
      const form = c.get('form');
      const alias = (form.alias ?? '').trim();
      const answer = await c.get('api').post('/v1/card/create', {
        amount: numberField(form.amount),
        currency: 'USDT',
        ...(alias ? { alias } : {}),
      });
      if (!answer.ok) return failed(c, '/console/cards', 'Card not created', answer, 'create');
      return done(c, `/console/cards/${enc(answer.body.cardId)}`, {
        title: `Card ${answer.body.maskedCardNo} created`,
      });
    })
    .get('/:cardId', (c) => cardPage(c, c.req.param('cardId')));
  cardActions(app);
  return app;
}
