import { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import type { Answer, Schema, Success } from '../api.js';
import { money } from '../format.js';
import { failed, loadAliases, page, takeFlash, type ConsoleEnv, type Ctx } from '../page.js';
import { Empty, Panel, PostForm, Submit } from '../ui.js';
import { BillTable, CardTiles } from './views.js';

// Home, as the issuer's dashboard lays it out: balance, deposit address, cards, latest transactions.

const HOME_CARDS = 8;

type Asset = Schema<'api.wallet.assetList.response'>['assetList'][number];

const Stat: FC<{ id: string; label: string; value: string; testId: string; sub: string }> = (p) => (
  <section class="panel stat" aria-labelledby={p.id}>
    <div class="label" id={p.id}>
      {p.label}
    </div>
    <div class="value" data-testid={p.testId}>
      {p.value}
    </div>
    <div class="sub">{p.sub}</div>
  </section>
);

const Wallet: FC<{ usdt?: Asset; address: Answer<Success<'POST', '/v1/wallet/getAddress'>> }> = ({ usdt, address }) => (
  <div class="grid">
    <Stat
      id="h-available"
      label="USDT available"
      value={money(usdt?.availableAmount)}
      testId="usdt-available"
      sub="Spendable for new cards and top-ups"
    />
    <Stat
      id="h-pending"
      label="USDT pending"
      value={money(usdt?.frozenAmount ?? '0')}
      testId="usdt-pending"
      sub="Seen on chain, not yet confirmed"
    />
    <section class="panel stat" aria-labelledby="h-address">
      <div class="label" id="h-address">
        Deposit address (USDT · TRC20)
      </div>
      {address.ok ? (
        <div class="mono address" data-testid="deposit-address">
          {address.body.address}
        </div>
      ) : (
        <div class="muted">{address.body.message || 'No deposit address'}</div>
      )}
    </section>
  </div>
);

async function homePage(c: Ctx) {
  const api = c.get('api');
  const flash = takeFlash(c);
  const [assets, address, cards, bills] = await Promise.all([
    api.post('/v1/wallet/assetList', {}),
    api.post('/v1/wallet/getAddress', { currency: 'USDT', network: 'TRX' }),
    api.post('/v1/card/list', {}),
    api.post('/v1/bill/list', { pageSize: 8 }),
  ]);
  const usdt = (assets.ok ? assets.body.assetList : []).find((a) => a.currency === 'USDT');
  const shown = (cards.ok ? cards.body.cardList : []).slice(0, HOME_CARDS);
  const aliases = await loadAliases(
    c,
    shown.map((card) => card.cardId),
  );
  const body = (
    <>
      <Wallet usdt={usdt} address={address} />
      <Panel
        id="h-cards"
        title={
          <>
            Cards <a href="/console/cards">View all</a>
          </>
        }
      >
        {shown.length ? (
          <CardTiles cards={shown} aliases={aliases} />
        ) : (
          <Empty>
            No cards yet. <a href="/console/cards?new=1">Create a card</a>.
          </Empty>
        )}
      </Panel>
      <Panel
        id="h-latest"
        title={
          <>
            Latest transactions <a href="/console/transactions">View all</a>
          </>
        }
      >
        <BillTable rows={bills.ok ? bills.body.transactions : []} label="Latest transactions" />
      </Panel>
      <section class="panel">
        <h2 id="h-snapshot">Snapshot</h2>
        <p class="muted">
          This account's whole state as one JSON file: load it with <code>card-sandbox serve --snapshot FILE</code>, or
          into a child sandbox with <code>POST /sandbox/v1/snapshot/import</code>.
        </p>
        <PostForm action="/console/snapshot" csrf={c.get('session').csrf} labelledBy="h-snapshot" layout="row">
          <Submit>Export snapshot</Submit>
        </PostForm>
      </section>
    </>
  );
  return page(c, { title: 'Home', active: 'Home', flash }, body);
}

/**
 * The account's snapshot as a file to save (the API's answer as it came, so `serve --snapshot` takes the file); a
 * refusal (a snapshot past its bound) comes back to the home page as a message.
 */
async function exportSnapshot(c: Ctx) {
  const answer = await c.get('api').post('/sandbox/v1/snapshot/export', {});
  if (!answer.ok) return failed(c, '/console', 'Export snapshot', answer);
  const day = answer.body.exportedAt.slice(0, 10);
  return c.body(JSON.stringify(answer.body), 200, {
    'Content-Type': 'application/json',
    'Content-Disposition': `attachment; filename="snapshot-${answer.body.account.id}-${day}.json"`,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
}

/** The console's home page, at /console, and its snapshot export. */
export function homeRoutes() {
  return new Hono<ConsoleEnv>().get('/', homePage).post('/snapshot', exportSnapshot);
}
