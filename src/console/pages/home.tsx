import { Hono } from 'hono';
import { money } from '../format.js';
import { loadAliases, page, takeFlash, type ConsoleEnv } from '../page.js';
import { Empty } from '../ui.js';
import { BillTable, CardTiles } from './views.js';

const HOME_CARDS = 8;

/** Home, as the issuer's dashboard lays it out: balance, deposit address, cards, latest transactions. */
export function homeRoutes() {
  return new Hono<ConsoleEnv>().get('/', async (c) => {
    const api = c.get('api');
    const flash = takeFlash(c);
    const [assets, address, cards, bills] = await Promise.all([
      api.post('/v1/wallet/assetList', {}),
      api.post('/v1/wallet/getAddress', { currency: 'USDT', network: 'TRX' }),
      api.post('/v1/card/list', {}),
      api.post('/v1/bill/list', { pageSize: 8 }),
    ]);
    const usdt = (assets.body.assetList ?? []).find((a: { currency: string }) => a.currency === 'USDT') ?? {};
    const cardList: { cardId: string }[] = cards.body.cardList ?? [];
    const shown = cardList.slice(0, HOME_CARDS);
    const aliases = await loadAliases(
      c,
      shown.map((card) => card.cardId),
    );
    const body = (
      <>
        <div class="grid">
          <section class="panel stat" aria-labelledby="h-available">
            <div class="label" id="h-available">
              USDT available
            </div>
            <div class="value" data-testid="usdt-available">
              {money(usdt.availableAmount)}
            </div>
            <div class="sub">Spendable for new cards and top-ups</div>
          </section>
          <section class="panel stat" aria-labelledby="h-pending">
            <div class="label" id="h-pending">
              USDT pending
            </div>
            <div class="value" data-testid="usdt-pending">
              {money(usdt.frozenAmount ?? '0')}
            </div>
            <div class="sub">Seen on chain, not yet confirmed</div>
          </section>
          <section class="panel stat" aria-labelledby="h-address">
            <div class="label" id="h-address">
              Deposit address (USDT · TRC20)
            </div>
            {address.ok ? (
              <div class="mono address" data-testid="deposit-address">
                {address.body.address}
              </div>
            ) : (
              <div class="muted">{String(address.body.message ?? 'No deposit address')}</div>
            )}
          </section>
        </div>
        <section class="panel" aria-labelledby="h-cards">
          <h2 id="h-cards">
            Cards <a href="/console/cards">View all</a>
          </h2>
          {shown.length ? (
            <CardTiles cards={shown} aliases={aliases} />
          ) : (
            <Empty>
              No cards yet. <a href="/console/cards?new=1">Create a card</a>.
            </Empty>
          )}
        </section>
        <section class="panel" aria-labelledby="h-latest">
          <h2 id="h-latest">
            Latest transactions <a href="/console/transactions">View all</a>
          </h2>
          <BillTable rows={bills.body.transactions ?? []} label="Latest transactions" />
        </section>
      </>
    );
    return page(c, { title: 'Home', active: 'Home', flash }, body);
  });
}
