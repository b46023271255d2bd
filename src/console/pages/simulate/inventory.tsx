import type { FC } from 'hono/jsx';
import { numberField } from '../../format.js';
import { Field, FormPanel, Select } from '../../ui.js';
import { field, simulation, TO, type FormProps } from './simulation.js';

// Inventory: how many cards a BIN has left to issue, and whether it is still provisioning (sandbox/v1/inventory).

const PROVISIONING = [
  ['', 'Unchanged'],
  ['true', 'In progress (4010)'],
  ['false', 'Done'],
] as const;

export const Inventory: FC<FormProps & { bins: readonly (readonly [string, string])[] }> = ({ csrf, values, bins }) => (
  <FormPanel id="f-inventory" title="Inventory" action={`${TO}/inventory`} csrf={csrf} submit="Update inventory">
    <Select id="inv-bin" label="BIN" name="binId" value={values.binId} options={bins} />
    <Field
      id="inv-available"
      label="Available cards"
      name="available"
      value={values.available}
      inputmode="numeric"
      hint="0 makes card/create fail with 4009"
    />
    <Select id="inv-prov" label="Provisioning" name="provisioning" value={values.provisioning} options={PROVISIONING} />
  </FormPanel>
);

export const inventory = simulation({
  form: 'inventory',
  path: '/sandbox/v1/inventory',
  body: (f) => ({
    binId: field(f, 'binId'),
    available: numberField(f.available),
    provisioning: f.provisioning === '' || f.provisioning === undefined ? undefined : f.provisioning === 'true',
  }),
  done: (b) => ({
    title: `Inventory of ${b.binId}: ${b.available} available${b.provisioning ? ', provisioning' : ''}`,
  }),
  refused: 'Inventory not changed',
});
