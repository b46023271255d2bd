import { last4, money } from '../format.js';
import { enc } from '../page.js';
import { Amount, Badge, Empty, TableWrap, Time, ColumnHeads } from '../ui.js';

// Views shared by several pages: card tiles and rows, bill/list tables, pagers.

export interface CardRow {
  cardId: string;
  cardStatus?: string;
  maskedCardNo?: string;
  availableBalance?: number;
  frozenAmount?: number;
  currency?: string;
}

export const cardName = (card: CardRow, aliases: Map<string, string | null>) =>
  aliases.get(card.cardId) ?? `Card •••• ${last4(card.maskedCardNo)}`;

/** The dashboard's card tiles: alias, masked number, balance, status. */
export const CardTiles = ({ cards, aliases }: { cards: CardRow[]; aliases: Map<string, string | null> }) => (
  <div class="cards">
    {cards.map((card) => (
      <a class={`card-tile ${String(card.cardStatus).toLowerCase()}`} href={`/console/cards/${enc(card.cardId)}`}>
        <div class="alias">{cardName(card, aliases)}</div>
        <div class="st">{card.cardStatus}</div>
        <div class="pan">•••• {last4(card.maskedCardNo)}</div>
        <div class="bal">{money(card.availableBalance)} USD</div>
      </a>
    ))}
  </div>
);

export const CardTable = ({ cards, aliases }: { cards: CardRow[]; aliases: Map<string, string | null> }) =>
  cards.length === 0 ? (
    <Empty>No cards yet.</Empty>
  ) : (
    <TableWrap label="Cards">
      <table>
        <ColumnHeads cols={['Alias', 'Last 4', 'Status', ['Balance', 'num'], ['Held', 'num hide-sm']]} />
        <tbody>
          {cards.map((card) => (
            <tr data-card-id={card.cardId}>
              <td>
                <a href={`/console/cards/${enc(card.cardId)}`}>{aliases.get(card.cardId) ?? '(no alias)'}</a>
              </td>
              <td class="mono">{last4(card.maskedCardNo)}</td>
              <td>
                <Badge value={card.cardStatus} />
              </td>
              <Amount value={card.availableBalance} currency={card.currency} />
              <td class="num hide-sm">{money(card.frozenAmount)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );

/** Previous / next links with the page count; `href(n)` builds page n's URL. */
export const Pager = (p: { page: number; totalPages: number; total: number; href: (n: number) => string }) => (
  <nav class="pager" aria-label="Pages">
    <span class="muted">
      Page {Math.min(p.page, Math.max(p.totalPages, 1))} of {Math.max(p.totalPages, 1)} · {p.total} in all
    </span>
    {p.page > 1 ? (
      <a class="button secondary small" href={p.href(p.page - 1)}>
        Previous
      </a>
    ) : null}
    {p.page < p.totalPages ? (
      <a class="button secondary small" href={p.href(p.page + 1)}>
        Next
      </a>
    ) : null}
  </nav>
);

export interface Bill {
  transactionTime: string;
  merchant: string;
  amount: string;
  currency: string;
  status: string;
}

/** bill/list rows as a table: time, merchant, status, signed amount. */
export const BillTable = ({ rows, label }: { rows: Bill[]; label: string }) =>
  rows.length === 0 ? (
    <Empty>No transactions yet.</Empty>
  ) : (
    <TableWrap label={label}>
      <table>
        <ColumnHeads cols={['Time', 'Merchant', 'Status', ['Amount', 'num']]} />
        <tbody>
          {rows.map((t) => (
            <tr>
              <td class="nowrap">
                <Time value={t.transactionTime} />
              </td>
              <td>{t.merchant}</td>
              <td>
                <Badge value={t.status} />
              </td>
              <Amount value={t.amount} currency={t.currency} />
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
