import { Hono } from 'hono';
import { last4, money, numberField } from '../format.js';
import { done, failed, kept, page, takeFlash, type ConsoleEnv, type Ctx } from '../page.js';
import { ActionButton, Amount, Badge, Empty, Field, FormPanel, Select, TableWrap, Time, ColumnHeads } from '../ui.js';
import type { CardRow } from './views.js';

// Simulate: the simulation API (/sandbox/v1) behind one form each, and the transactions still to settle.

const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'SGD', 'HKD', 'CNY'].map((c) => [c, c] as const);
const DECLINE_REASONS = [
  ['', 'None (approve if possible)'],
  ...['DO_NOT_HONOR', 'SUSPECTED_FRAUD', 'INVALID_CVV', 'EXPIRED_CARD', 'MERCHANT_BLOCKED', 'INSUFFICIENT_FUNDS'].map(
    (r) => [r, r] as const,
  ),
] as const;
const TO = '/console/simulate';
const RECENT_TRANSACTIONS = 15;

interface TxnState {
  transactionId: string;
  cardId: string;
  status: string;
  merchantName: string;
  billAmount: number;
  billCurrency: string;
  created: number;
}

/** Each transaction's latest state, from its transaction.* events (newest first, so the first seen is the latest). */
function transactionStates(events: { type: string; created: number; data: TxnState }[]): TxnState[] {
  const seen = new Map<string, TxnState>();
  for (const e of events) {
    if (!e.type.startsWith('transaction.') || seen.has(e.data.transactionId)) continue;
    seen.set(e.data.transactionId, { ...e.data, created: e.created });
  }
  return [...seen.values()].slice(0, RECENT_TRANSACTIONS);
}

async function simulatePage(c: Ctx) {
  const api = c.get('api');
  const flash = takeFlash(c);
  const csrf = c.get('session').csrf;
  const [cards, bins, deposits, created, updated] = await Promise.all([
    api.post('/v1/card/list', {}),
    api.post('/v1/card/binList', {}),
    api.post('/sandbox/v1/chain/deposits', {}),
    api.post('/sandbox/v1/events', { type: 'transaction.created', limit: RECENT_TRANSACTIONS * 3 }),
    api.post('/sandbox/v1/events', { type: 'transaction.updated', limit: RECENT_TRANSACTIONS * 3 }),
  ]);
  const cardList: CardRow[] = cards.body.cardList ?? [];
  const aliases = c.get('aliases');
  const cardOptions = cardList
    .filter((card) => card.cardStatus !== 'CANCELLED')
    .map((card) => [card.cardId, `${aliases.get(card.cardId) ?? 'Card'} •••• ${last4(card.maskedCardNo)}`] as const);
  const last4Of = new Map(cardList.map((card) => [card.cardId, last4(card.maskedCardNo)]));
  const events = [...(updated.body.events ?? []), ...(created.body.events ?? [])].sort(
    (a, b) => b.created - a.created || (a.type === 'transaction.updated' ? -1 : 1),
  );
  const txns = transactionStates(events);
  const binOptions = (bins.body.availableCardBinList ?? []).map((b: { id: string; title: string }) => [
    b.id,
    `${b.title} (${b.id})`,
  ]);
  const v = (form: string) => kept(flash, form);
  const body = (
    <>
      <div class="split">
        <FormPanel
          id="f-deposit"
          title="Deposit on chain"
          action={`${TO}/deposit`}
          csrf={csrf}
          after={
            <>
              <h3>Deposits</h3>
              {(deposits.body.deposits ?? []).length === 0 ? (
                <Empty>No on-chain deposits yet.</Empty>
              ) : (
                <TableWrap label="On-chain deposits">
                  <table>
                    <ColumnHeads cols={['Seen', 'Status', ['Conf.', 'num'], ['Amount', 'num']]} />
                    <tbody>
                      {(deposits.body.deposits ?? []).slice(0, 8).map((d: Record<string, string>) => (
                        <tr>
                          <td class="nowrap">
                            <Time value={d.seenAt} />
                          </td>
                          <td>
                            <Badge value={d.status} />
                          </td>
                          <td class="num">{d.confirmations}</td>
                          <Amount value={d.amount} currency="USDT" />
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableWrap>
              )}
            </>
          }
        >
          <Field
            id="dep-amount"
            label="Amount"
            name="amount"
            value={v('deposit').amount}
            inputmode="decimal"
            required
          />
          <Field
            id="dep-conf"
            label="Confirmations"
            name="confirmations"
            value={v('deposit').confirmations ?? '0'}
            inputmode="numeric"
            hint="Credited at 19 confirmations, one block per 3 s of account time"
          />
        </FormPanel>
        <FormPanel id="f-purchase" title="Purchase" action={`${TO}/purchase`} csrf={csrf}>
          <Select id="pur-card" label="Card" name="cardId" value={v('purchase').cardId} options={cardOptions} />
          <Field
            id="pur-amount"
            label="Amount"
            name="amount"
            value={v('purchase').amount}
            inputmode="decimal"
            required
          />
          <Select
            id="pur-cur"
            label="Currency"
            name="currency"
            value={v('purchase').currency ?? 'USD'}
            options={CURRENCIES}
          />
          <Field
            id="pur-merchant"
            label="Merchant"
            name="merchantName"
            value={v('purchase').merchantName}
            hint="Optional: a made-up one otherwise"
          />
          <Select
            id="pur-decline"
            label="Decline reason"
            name="declineReason"
            value={v('purchase').declineReason}
            options={DECLINE_REASONS}
          />
        </FormPanel>
      </div>
      <section class="panel" aria-labelledby="h-settle">
        <h2 id="h-settle">Card transactions</h2>
        {txns.length === 0 ? (
          <Empty>No card transactions yet: make a purchase.</Empty>
        ) : (
          <TableWrap label="Card transactions to settle">
            <table>
              <ColumnHeads cols={['Time', 'Merchant', ['Card', 'hide-sm'], 'Status', ['Amount', 'num'], 'Actions']} />
              <tbody>
                {txns.map((t) => (
                  <tr data-transaction-id={t.transactionId}>
                    <td class="nowrap">
                      <Time value={t.created} />
                    </td>
                    <td>{t.merchantName}</td>
                    <td class="mono hide-sm">{last4Of.get(t.cardId) ?? '—'}</td>
                    <td>
                      <Badge value={t.status} />
                    </td>
                    <Amount value={t.billAmount} currency={t.billCurrency} />
                    <td>
                      <div class="actions">
                        {t.status === 'PENDING' && (
                          <>
                            <ActionButton
                              action={`${TO}/clear`}
                              label="Clear"
                              csrf={csrf}
                              kind="small"
                              fields={{ transactionId: t.transactionId }}
                            />
                            <ActionButton
                              action={`${TO}/reverse`}
                              label="Reverse"
                              csrf={csrf}
                              kind="secondary small"
                              fields={{ transactionId: t.transactionId }}
                            />
                          </>
                        )}
                        {t.status === 'CLEARED' && (
                          <ActionButton
                            action={`${TO}/refund`}
                            label="Refund"
                            csrf={csrf}
                            kind="secondary small"
                            fields={{ transactionId: t.transactionId }}
                          />
                        )}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </section>
      <div class="split">
        <FormPanel id="f-3ds" title="3DS challenge" action={`${TO}/3ds`} csrf={csrf}>
          <Select id="tds-card" label="Card" name="cardId" value={v('3ds').cardId} options={cardOptions} />
          <Select
            id="tds-type"
            label="Type"
            name="type"
            value={v('3ds').type ?? 'payment'}
            options={[
              ['payment', 'Payment'],
              ['binding', 'Binding (device or card activation)'],
            ]}
          />
        </FormPanel>
        <FormPanel id="f-clock" title="Advance clock" action={`${TO}/clock`} csrf={csrf}>
          <Field
            id="clock-seconds"
            label="Seconds"
            name="advanceSeconds"
            value={v('clock').advanceSeconds ?? '60'}
            inputmode="numeric"
            hint="Runs every timer that falls due: settlements, retries, confirmations, expiries"
          />
        </FormPanel>
      </div>
      <div class="split">
        <FormPanel id="f-inventory" title="Inventory" action={`${TO}/inventory`} csrf={csrf} submit="Update inventory">
          <Select id="inv-bin" label="BIN" name="binId" value={v('inventory').binId} options={binOptions} />
          <Field
            id="inv-available"
            label="Available cards"
            name="available"
            value={v('inventory').available}
            inputmode="numeric"
            hint="0 makes card/create fail with 4009"
          />
          <Select
            id="inv-prov"
            label="Provisioning"
            name="provisioning"
            value={v('inventory').provisioning}
            options={[
              ['', 'Unchanged'],
              ['true', 'In progress (4010)'],
              ['false', 'Done'],
            ]}
          />
        </FormPanel>
        <FormPanel
          id="f-faults"
          title="Faults"
          action={`${TO}/faults`}
          csrf={csrf}
          submit="Set faults"
          after={
            <>
              <div class="actions">
                <ActionButton action={`${TO}/faults/clear`} label="Remove faults" csrf={csrf} kind="secondary" />
              </div>
            </>
          }
        >
          <div class="field">
            <label for="fault-rules">Rules (JSON)</label>
            <textarea id="fault-rules" name="rules" spellcheck={false} aria-describedby="fault-hint">
              {v('faults').rules ??
                '[{"path": "/v1/card/create", "count": 1, "respond": {"httpStatus": 500, "code": 9999}}]'}
            </textarea>
            <span class="hint" id="fault-hint">
              Each rule: path, count, latencyMs, respond {'{httpStatus, code, message}'}, dropResponse
            </span>
          </div>
        </FormPanel>
      </div>
    </>
  );
  return page(c, { title: 'Simulate', active: 'Simulate', flash }, body);
}

const clean = (form: Record<string, string>, names: string[]) =>
  Object.fromEntries(names.flatMap((n) => ((form[n] ?? '').trim() === '' ? [] : [[n, form[n]!.trim()]])));

/** Each form: build the simulation call's body from the form, call, and report. */
const SIMULATIONS: Record<
  string,
  { path: string; body: (f: Record<string, string>) => Record<string, unknown>; ok: (b: any) => string; error: string }
> = {
  deposit: {
    path: '/sandbox/v1/chain/transfer',
    body: (f) => ({ amount: numberField(f.amount), confirmations: numberField(f.confirmations) }),
    ok: (b) => `Transfer seen on chain: ${b.status}`,
    error: 'Deposit refused',
  },
  purchase: {
    path: '/sandbox/v1/card/authorize',
    body: (f) => ({
      ...clean(f, ['cardId', 'currency', 'merchantName', 'declineReason']),
      amount: numberField(f.amount),
    }),
    ok: (b) => `Authorisation ${b.status}${b.declineReason ? ` (${b.declineReason})` : ''}: ${b.transactionId}`,
    error: 'Purchase refused',
  },
  clear: {
    path: '/sandbox/v1/transaction/clear',
    body: (f) => clean(f, ['transactionId']),
    ok: () => 'Transaction cleared',
    error: 'Clearing refused',
  },
  reverse: {
    path: '/sandbox/v1/transaction/reverse',
    body: (f) => clean(f, ['transactionId']),
    ok: () => 'Transaction reversed',
    error: 'Reversal refused',
  },
  refund: {
    path: '/sandbox/v1/transaction/refund',
    body: (f) => clean(f, ['transactionId']),
    ok: (b) => `Refund created: ${b.transactionId}`,
    error: 'Refund refused',
  },
  clock: {
    path: '/sandbox/v1/clock',
    body: (f) => ({ advanceSeconds: numberField(f.advanceSeconds) }),
    ok: (b) => `Clock advanced: account time is now ${b.now}`,
    error: 'Clock not advanced',
  },
  inventory: {
    path: '/sandbox/v1/inventory',
    body: (f) => ({
      ...clean(f, ['binId']),
      available: numberField(f.available),
      provisioning: f.provisioning === '' || f.provisioning === undefined ? undefined : f.provisioning === 'true',
    }),
    ok: (b) => `Inventory of ${b.binId}: ${b.available} available${b.provisioning ? ', provisioning' : ''}`,
    error: 'Inventory not changed',
  },
  'faults/clear': {
    path: '/sandbox/v1/faults/clear',
    body: () => ({}),
    ok: () => 'Faults cleared',
    error: 'Faults not cleared',
  },
};

export function simulateRoutes() {
  const app = new Hono<ConsoleEnv>().get('/', (c) => simulatePage(c));
  for (const [name, sim] of Object.entries(SIMULATIONS)) {
    app.post(`/${name}`, async (c) => {
      const answer = await c.get('api').post(sim.path, sim.body(c.get('form')));
      return answer.ok ? done(c, TO, { title: sim.ok(answer.body) }) : failed(c, TO, sim.error, answer, name);
    });
  }
  app.post('/3ds', async (c) => {
    const form = c.get('form');
    const answer = await c.get('api').post('/sandbox/v1/card/3ds', clean(form, ['cardId', 'type']));
    if (!answer.ok) return failed(c, TO, '3DS challenge refused', answer, '3ds');
    // The OTP is in the simulation answer only; it is shown on the next page view and then forgotten.
    return done(c, TO, {
      title: `3DS challenge raised: ${answer.body.challengeId}`,
      reveal: [
        { label: 'One-time code', value: String(answer.body.otp) },
        { label: 'Expires', value: String(answer.body.expiresAt) },
      ],
    });
  });
  app.post('/faults', async (c) => {
    const text = (c.get('form').rules ?? '').trim();
    // The rules go to the API as the text typed, never parsed here: the API bounds their size and nesting first
    // (5,000 nested brackets parsed and serialised again in this process overflowed its stack). Text that is not a
    // JSON array is sent as a string, so the API's answer names the problem ("rules must be an array").
    const body = text.startsWith('[') ? `{"rules":${text}}` : JSON.stringify({ rules: text });
    const answer = await c.get('api').postText('/sandbox/v1/faults', body);
    return answer.ok ? done(c, TO, { title: 'Faults set' }) : failed(c, TO, 'Faults not set', answer, 'faults');
  });
  return app;
}
