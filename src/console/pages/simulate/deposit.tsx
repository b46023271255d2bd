import type { FC } from 'hono/jsx';
import type { Schema } from '../../api.js';
import { numberField } from '../../format.js';
import { Amount, Badge, Empty, Field, FormPanel, Table, Time } from '../../ui.js';
import { simulation, TO, type FormProps } from './simulation.js';

// Deposit on chain: a USDT transfer to the account's address (sandbox/v1/chain/transfer), and the deposits seen.

type Deposit = Schema<'sandbox.chain.deposits.response'>['deposits'][number];
const DEPOSITS_SHOWN = 8;

const Deposits: FC<{ deposits: readonly Deposit[] }> = ({ deposits }) =>
  deposits.length === 0 ? (
    <Empty>No on-chain deposits yet.</Empty>
  ) : (
    <Table
      label="On-chain deposits"
      cols={['Seen', 'Status', ['Conf.', 'num'], ['Amount', 'num']]}
      rows={deposits.slice(0, DEPOSITS_SHOWN)}
      row={(d) => (
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
      )}
    />
  );

export const DepositOnChain: FC<FormProps & { deposits: readonly Deposit[] }> = ({ csrf, values, deposits }) => (
  <FormPanel
    id="f-deposit"
    title="Deposit on chain"
    action={`${TO}/deposit`}
    csrf={csrf}
    after={
      <>
        <h3>Deposits</h3>
        <Deposits deposits={deposits} />
      </>
    }
  >
    <Field id="dep-amount" label="Amount" name="amount" value={values.amount} inputmode="decimal" required />
    <Field
      id="dep-conf"
      label="Confirmations"
      name="confirmations"
      value={values.confirmations ?? '0'}
      inputmode="numeric"
      hint="Credited at 19 confirmations, one block per 3 s of account time"
    />
  </FormPanel>
);

export const depositOnChain = simulation({
  form: 'deposit',
  path: '/sandbox/v1/chain/transfer',
  body: (f) => ({ amount: numberField(f.amount), confirmations: numberField(f.confirmations) }),
  done: (b) => ({ title: `Transfer seen on chain: ${b.status}` }),
  refused: 'Deposit refused',
});
