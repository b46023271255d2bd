import type { FC } from 'hono/jsx';
import type { SandboxEvent } from '../views.js';
import { ActionButton, Amount, Badge, Empty, Panel, Table, Time } from '../../ui.js';
import { field, simulation, TO } from './simulation.js';

// Card transactions still to settle, each with what can happen to it next: a pending one is cleared or reversed
// (sandbox/v1/transaction/clear, reverse), a cleared one refunded (refund).

/** A transaction's latest event: its state is the event's data. */
export type TransactionEvent = Extract<SandboxEvent, { type: 'transaction.created' | 'transaction.updated' }>;

export const RECENT_TRANSACTIONS = 15;

const isTransactionEvent = (e: SandboxEvent): e is TransactionEvent => e.type.startsWith('transaction.');

/** Each transaction's latest event (newest first, so the first seen is the latest), newest transactions first. */
export function latestByTransaction(events: readonly SandboxEvent[]): TransactionEvent[] {
  const sorted = [...events].sort((a, b) => b.created - a.created || (a.type === 'transaction.updated' ? -1 : 1));
  const seen = new Map<string, TransactionEvent>();
  for (const e of sorted)
    if (isTransactionEvent(e) && !seen.has(e.data.transactionId)) seen.set(e.data.transactionId, e);
  return [...seen.values()].slice(0, RECENT_TRANSACTIONS);
}

const Actions: FC<{ t: TransactionEvent['data']; csrf: string }> = ({ t, csrf }) => {
  const fields = { transactionId: t.transactionId };
  return (
    <div class="actions">
      {t.status === 'PENDING' && (
        <>
          <ActionButton action={`${TO}/clear`} label="Clear" csrf={csrf} kind="small" fields={fields} />
          <ActionButton action={`${TO}/reverse`} label="Reverse" csrf={csrf} kind="secondary small" fields={fields} />
        </>
      )}
      {t.status === 'CLEARED' && (
        <ActionButton action={`${TO}/refund`} label="Refund" csrf={csrf} kind="secondary small" fields={fields} />
      )}
    </div>
  );
};

export const CardTransactions: FC<{
  transactions: readonly TransactionEvent[];
  last4Of: Map<string, string>;
  csrf: string;
}> = ({ transactions, last4Of, csrf }) => (
  <Panel id="h-settle" title="Card transactions">
    {transactions.length === 0 ? (
      <Empty>No card transactions yet: make a purchase.</Empty>
    ) : (
      <Table
        label="Card transactions to settle"
        cols={['Time', 'Merchant', ['Card', 'hide-sm'], 'Status', ['Amount', 'num'], 'Actions']}
        rows={transactions}
        row={({ created, data: t }) => (
          <tr data-transaction-id={t.transactionId}>
            <td class="nowrap">
              <Time value={created} />
            </td>
            <td>{t.merchantName}</td>
            <td class="mono hide-sm">{last4Of.get(t.cardId) ?? '—'}</td>
            <td>
              <Badge value={t.status} />
            </td>
            <Amount value={t.billAmount} currency={t.billCurrency} />
            <td>
              <Actions t={t} csrf={csrf} />
            </td>
          </tr>
        )}
      />
    )}
  </Panel>
);

/** The body of each action: the transaction of the row whose button was pressed. */
const theTransaction = (form: Record<string, string>) => ({ transactionId: field(form, 'transactionId') });

export const clear = simulation({
  form: 'clear',
  path: '/sandbox/v1/transaction/clear',
  body: theTransaction,
  done: () => ({ title: 'Transaction cleared' }),
  refused: 'Clearing refused',
});

export const reverse = simulation({
  form: 'reverse',
  path: '/sandbox/v1/transaction/reverse',
  body: theTransaction,
  done: () => ({ title: 'Transaction reversed' }),
  refused: 'Reversal refused',
});

export const refund = simulation({
  form: 'refund',
  path: '/sandbox/v1/transaction/refund',
  body: theTransaction,
  done: (b) => ({ title: `Refund created: ${b.transactionId}` }),
  refused: 'Refund refused',
});
