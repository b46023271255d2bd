import type { FC } from 'hono/jsx';
import { numberField } from '../../format.js';
import { Field, FormPanel } from '../../ui.js';
import { simulation, TO, type FormProps } from './simulation.js';

// Advance clock: the account's time moves on and every timer that falls due runs (sandbox/v1/clock).

export const AdvanceClock: FC<FormProps> = ({ csrf, values }) => (
  <FormPanel id="f-clock" title="Advance clock" action={`${TO}/clock`} csrf={csrf}>
    <Field
      id="clock-seconds"
      label="Seconds"
      name="advanceSeconds"
      value={values.advanceSeconds ?? '60'}
      inputmode="numeric"
      hint="Runs every timer that falls due: settlements, retries, confirmations, expiries"
    />
  </FormPanel>
);

export const advanceClock = simulation({
  form: 'clock',
  path: '/sandbox/v1/clock',
  body: (f) => ({ advanceSeconds: numberField(f.advanceSeconds) }),
  done: (b) => ({ title: `Clock advanced: account time is now ${b.now}` }),
  refused: 'Clock not advanced',
});
