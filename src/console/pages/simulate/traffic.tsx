import type { FC } from 'hono/jsx';
import { numberField } from '../../format.js';
import type { Schema } from '../../api.js';
import { ActionButton, Badge, Empty, Field, FormPanel, Select, Table, Time } from '../../ui.js';
import type { CardOptions } from './purchase.js';
import { field, simulation, TO, type FormProps } from './simulation.js';

// Traffic: a seeded stream of every kind of network message on the account's cards, run as the clock passes
// (sandbox/v1/traffic/start, stop, list). Advance the clock to play it.

export type TrafficRun = Schema<'sandbox.traffic.run'>;

const total = (run: TrafficRun) => Object.values(run.scheduled).reduce((s, n) => s + n, 0);

export const Traffic: FC<FormProps & { cards: CardOptions; runs: readonly TrafficRun[] }> = ({
  csrf,
  values,
  cards,
  runs,
}) => (
  <FormPanel
    id="f-traffic"
    title="Traffic"
    action={`${TO}/traffic`}
    csrf={csrf}
    submit="Start traffic"
    after={
      runs.length === 0 ? (
        <Empty>No traffic yet: start some, then advance the clock.</Empty>
      ) : (
        <Table
          label="Traffic runs"
          cols={['Started', 'Run', 'Status', ['Messages', 'num'], 'Actions']}
          rows={runs}
          row={(run) => (
            <tr data-traffic-id={run.trafficId}>
              <td class="nowrap">
                <Time value={run.startedAt} />
              </td>
              <td class="mono">
                {run.trafficId} · seed {run.seed} · {run.days} d × {run.perCardPerDay}/card
              </td>
              <td>
                <Badge value={run.status} />
              </td>
              <td class="num">{total(run)}</td>
              <td>
                {run.status === 'running' && (
                  <ActionButton
                    action={`${TO}/traffic/stop`}
                    label="Stop traffic"
                    csrf={csrf}
                    kind="secondary small"
                    fields={{ trafficId: run.trafficId }}
                  />
                )}
              </td>
            </tr>
          )}
        />
      )
    }
  >
    <Select
      id="trf-card"
      label="Cards"
      name="cardId"
      value={values.cardId}
      options={[['', 'Every ACTIVE card'], ...cards]}
    />
    <Field id="trf-days" label="Days" name="days" value={values.days ?? '30'} inputmode="numeric" hint="1 to 90" />
    <Field
      id="trf-per-day"
      label="Per card per day"
      name="perCardPerDay"
      value={values.perCardPerDay ?? '10'}
      inputmode="numeric"
      hint="1 to 500 purchases a card a day, each with its follow-up messages"
    />
    <Field
      id="trf-seed"
      label="Seed"
      name="seed"
      value={values.seed}
      inputmode="numeric"
      hint="Optional: the same seed replays the same traffic"
    />
  </FormPanel>
);

export const startTraffic = simulation({
  form: 'traffic',
  path: '/sandbox/v1/traffic/start',
  body: (f) => {
    const cardId = field(f, 'cardId');
    return {
      ...(cardId ? { cardIds: [cardId] } : {}),
      days: numberField(f.days),
      perCardPerDay: numberField(f.perCardPerDay),
      seed: numberField(f.seed),
    };
  },
  done: (b) => ({
    title: `Traffic started: ${b.trafficId} (seed ${b.seed}), ${total(b)} messages over ${b.days} days: advance the clock to play them`,
  }),
  refused: 'Traffic refused',
});

export const stopTraffic = simulation({
  form: 'traffic-stop',
  path: '/sandbox/v1/traffic/stop',
  body: (f) => ({ trafficId: field(f, 'trafficId') }),
  done: (b) => ({ title: `Traffic stopped: ${b.trafficId}, ${b.cancelled} messages cancelled` }),
  refused: 'Traffic not stopped',
});
