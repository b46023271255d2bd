import type { FC } from 'hono/jsx';
import { FormPanel, Select } from '../../ui.js';
import type { CardOptions } from './purchase.js';
import { field, simulation, TO, type FormProps } from './simulation.js';

// 3DS challenge: the issuer asks the cardholder for a one-time code (sandbox/v1/card/3ds).

const TYPES = [
  ['payment', 'Payment'],
  ['binding', 'Binding (device or card activation)'],
] as const;

export const ThreeDSChallenge: FC<FormProps & { cards: CardOptions }> = ({ csrf, values, cards }) => (
  <FormPanel id="f-3ds" title="3DS challenge" action={`${TO}/3ds`} csrf={csrf}>
    <Select id="tds-card" label="Card" name="cardId" value={values.cardId} options={cards} />
    <Select id="tds-type" label="Type" name="type" value={values.type ?? 'payment'} options={TYPES} />
  </FormPanel>
);

export const threeDSChallenge = simulation({
  form: '3ds',
  path: '/sandbox/v1/card/3ds',
  body: (f) => ({ cardId: field(f, 'cardId'), type: field(f, 'type') }),
  // The OTP is in the simulation answer only; it is shown on the next page view and then forgotten.
  done: (b) => ({
    title: `3DS challenge raised: ${b.challengeId}`,
    reveal: [
      { label: 'One-time code', value: b.otp },
      { label: 'Expires', value: b.expiresAt },
    ],
  }),
  refused: '3DS challenge refused',
});
