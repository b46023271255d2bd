import type { Schema } from '../api.js';
import { last4, money } from '../format.js';
import { enc } from '../page.js';
import { Amount, Badge, BelowZero, Empty, Table, Time } from '../ui.js';

// Views shared by several pages: card tiles and rows, bill/list tables, pagers.

/** A card as card/list answers it. */
export type CardRow = Schema<'api.card.list.response'>['cardList'][number];
/** A transaction as bill/list answers it. */
export type Bill = Schema<'api.bill.list.response'>['transactions'][number];
/** An event as sandbox/v1/events answers it: its type tells its data, and its webhook delivery's state. */
export type SandboxEvent = Schema<'sandbox.events.response'>['events'][number];

const cardName = (card: CardRow, aliases: Map<string, string | null>) =>
  aliases.get(card.cardId) ?? `Card •••• ${last4(card.maskedCardNo)}`;

/** A card as an option of a select: its id, and its alias (or "Card") with the last four digits. */
export const cardOption = (card: CardRow, aliases: Map<string, string | null>) =>
  [card.cardId, `${aliases.get(card.cardId) ?? 'Card'} •••• ${last4(card.maskedCardNo)}`] as const;

/** The dashboard's card tiles: alias, masked number, balance, status. */
export const CardTiles = ({ cards, aliases }: { cards: readonly CardRow[]; aliases: Map<string, string | null> }) => (
  <div class="cards">
    {cards.map((card) => (
      <a class={`card-tile ${card.cardStatus.toLowerCase()}`} href={`/console/cards/${enc(card.cardId)}`}>
        <div class="head">
          <div class="alias">{cardName(card, aliases)}</div>
          <div class="st">{card.cardStatus}</div>
        </div>
        <div class="pan">•••• {last4(card.maskedCardNo)}</div>
        <div class="bal">
          {money(card.availableBalance)} USD <BelowZero value={card.availableBalance} />
        </div>
      </a>
    ))}
  </div>
);

export const CardTable = ({ cards, aliases }: { cards: readonly CardRow[]; aliases: Map<string, string | null> }) =>
  cards.length === 0 ? (
    <Empty>No cards yet.</Empty>
  ) : (
    <Table
      label="Cards"
      cols={['Alias', 'Last 4', 'Status', ['Balance', 'num'], ['Held', 'num hide-sm']]}
      rows={cards}
      row={(card) => (
        <tr data-card-id={card.cardId}>
          <td>
            <a href={`/console/cards/${enc(card.cardId)}`}>{aliases.get(card.cardId) ?? '(no alias)'}</a>
          </td>
          <td class="mono">{last4(card.maskedCardNo)}</td>
          <td>
            <Badge value={card.cardStatus} />
          </td>
          <td class="num">
            {money(card.availableBalance)} {card.currency} <BelowZero value={card.availableBalance} />
          </td>
          <td class="num hide-sm">{money(card.frozenAmount)}</td>
        </tr>
      )}
    />
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

/** bill/list rows as a table: time, merchant, status, signed amount. */
export const BillTable = ({ rows, label }: { rows: readonly Bill[]; label: string }) =>
  rows.length === 0 ? (
    <Empty>No transactions yet.</Empty>
  ) : (
    <Table
      label={label}
      cols={['Time', 'Merchant', 'Status', ['Amount', 'num']]}
      rows={rows}
      row={(t) => (
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
      )}
    />
  );
