import { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import type { Schema } from '../api.js';
import type { Flash } from '../session.js';
import { done, failed, fragment, kept, page, takeFlash, type ConsoleEnv, type Ctx } from '../page.js';
import { ActionButton, Badge, Empty, Field, Json, Live, Panel, PostForm, Submit, Table, Time } from '../ui.js';
import type { SandboxEvent } from './views.js';

// Webhooks: the endpoint (GET/PUT /v1/webhook, rotate-secret) and the deliveries (sandbox events with their
// attempts), refreshed live.

const TO = '/console/webhooks';
const EVENTS_SHOWN = 30;

type Endpoint = Schema<'api.webhook.config'>;
type Attempt = Schema<'sandbox.webhook.deliveries.response'>['deliveries'][number];

const Attempts: FC<{ eventId: string; attempts: readonly Attempt[] }> = ({ eventId, attempts }) =>
  attempts.length === 0 ? (
    <Empty>No attempt yet.</Empty>
  ) : (
    <Table
      label={`Attempts of ${eventId}`}
      cols={['#', 'Time', 'Status', ['Latency', 'num'], 'Error', 'Next retry']}
      rows={attempts}
      row={(a) => (
        <tr>
          <td>
            {a.attempt}
            {a.redelivery ? ' (redelivery)' : ''}
          </td>
          <td class="nowrap">
            <Time value={a.at} />
          </td>
          <td>{a.statusCode ?? '—'}</td>
          <td class="num">{a.latencyMs === null ? '—' : `${a.latencyMs} ms`}</td>
          <td>{a.error ?? ''}</td>
          <td class="nowrap">{a.nextRetryAt ? <Time value={a.nextRetryAt} /> : '—'}</td>
        </tr>
      )}
    />
  );

const Delivery: FC<{ e: SandboxEvent; attempts: readonly Attempt[]; csrf: string }> = ({ e, attempts, csrf }) => (
  <details class="item" id={`d-${e.id}`} data-event-id={e.id}>
    <summary>
      <strong>{e.type}</strong>
      <span class="mono muted">{e.id}</span>
      <Badge value={e.delivery.state} />
      <span class="muted">
        {e.delivery.attempts} attempt{e.delivery.attempts === 1 ? '' : 's'}
      </span>
      {e.delivery.nextAttemptAt && (
        <span class="muted">
          next retry <Time value={e.delivery.nextAttemptAt} />
        </span>
      )}
    </summary>
    <div class="body">
      <Attempts eventId={e.id} attempts={attempts} />
      <h3>Payload</h3>
      <Json value={{ id: e.id, type: e.type, created: e.created, data: e.data }} label={`Payload of ${e.id}`} />
      <div class="actions">
        <ActionButton
          action={`${TO}/redeliver`}
          label="Redeliver"
          csrf={csrf}
          kind="secondary small"
          fields={{ eventId: e.id }}
        />
      </div>
    </div>
  </details>
);

/** The latest events, each with its delivery attempts. */
async function deliveriesView(c: Ctx) {
  const api = c.get('api');
  const [events, attempts] = await Promise.all([
    api.post('/sandbox/v1/events', { limit: EVENTS_SHOWN }),
    api.post('/sandbox/v1/webhook/deliveries', { limit: 1000 }),
  ]);
  const byEvent = new Map<string, Attempt[]>();
  for (const a of attempts.ok ? attempts.body.deliveries : []) {
    byEvent.set(a.eventId, [...(byEvent.get(a.eventId) ?? []), a]);
  }
  const rows = events.ok ? events.body.events : [];
  const csrf = c.get('session').csrf;
  if (rows.length === 0) return <Empty>No events yet.</Empty>;
  return (
    <>
      {rows.map((e) => (
        <Delivery e={e} attempts={byEvent.get(e.id) ?? []} csrf={csrf} />
      ))}
    </>
  );
}

/** The endpoint's state and its form; what a failed save typed wins over what is stored. */
const EndpointPanel: FC<{ w: Endpoint; flash?: Flash; csrf: string }> = ({ w, flash, csrf }) => {
  const values = kept(flash, 'endpoint');
  const checked = (name: string, current: boolean) => (flash?.form === 'endpoint' ? values[name] === 'on' : current);
  return (
    <Panel
      id="h-endpoint"
      title={
        <>
          Endpoint {w.configured ? <Badge value={w.enabled ? 'ACTIVE' : 'FROZEN'} /> : <Badge value="not configured" />}
        </>
      }
    >
      {w.configured && (
        <p class="muted">
          Signing secret <code>{w.secretPrefix}…</code> (the full secret is shown once, when created or rotated)
        </p>
      )}
      <PostForm action={TO} csrf={csrf} labelledBy="h-endpoint" layout="stack">
        <Field
          id="wh-url"
          label="URL"
          name="url"
          value={values.url ?? (w.configured ? w.url : '')}
          placeholder="https://example.com/webhooks"
          required
        />
        <label class="check">
          <input type="checkbox" name="enabled" checked={checked('enabled', w.configured ? w.enabled : true)} /> Enabled
        </label>
        <label class="check">
          <input
            type="checkbox"
            name="deliver3dsCode"
            checked={checked('deliver3dsCode', w.configured && w.deliver3dsCode)}
          />{' '}
          Deliver 3DS codes
        </label>
        <Submit>Save endpoint</Submit>
      </PostForm>
      {w.configured && (
        <div class="actions">
          <ActionButton action={`${TO}/rotate`} label="Rotate secret" csrf={csrf} kind="secondary" />
        </div>
      )}
    </Panel>
  );
};

async function webhooksPage(c: Ctx) {
  const flash = takeFlash(c);
  const [config, deliveries] = await Promise.all([c.get('api').send('GET', '/v1/webhook'), deliveriesView(c)]);
  const body = (
    <>
      <EndpointPanel w={config.ok ? config.body : { configured: false }} flash={flash} csrf={c.get('session').csrf} />
      <Panel id="h-deliveries" title="Delivery log">
        <Live src={`${TO}/live`} label="Deliveries">
          {deliveries}
        </Live>
      </Panel>
    </>
  );
  return page(c, { title: 'Webhooks', active: 'Webhooks', flash }, body);
}

async function saveEndpoint(c: Ctx) {
  const form = c.get('form');
  const answer = await c.get('api').send('PUT', '/v1/webhook', {
    body: {
      url: (form.url ?? '').trim(),
      enabled: form.enabled === 'on',
      deliver3dsCode: form.deliver3dsCode === 'on',
    },
  });
  if (!answer.ok) return failed(c, TO, 'Endpoint not saved', answer, 'endpoint');
  const reveal = answer.body.secret ? [{ label: 'Signing secret (shown once)', value: answer.body.secret }] : undefined;
  return done(c, TO, { title: 'Endpoint saved', reveal });
}

async function rotateSecret(c: Ctx) {
  const answer = await c.get('api').post('/v1/webhook/rotate-secret', {});
  if (!answer.ok) return failed(c, TO, 'Secret not rotated', answer);
  return done(c, TO, {
    title: 'Secret rotated: the old one no longer signs',
    reveal: [{ label: 'New signing secret (shown once)', value: answer.body.secret }],
  });
}

async function redeliver(c: Ctx) {
  const eventId = c.get('form').eventId ?? '';
  const answer = await c.get('api').post('/sandbox/v1/webhook/redeliver', { eventId });
  if (!answer.ok) return failed(c, TO, 'Redelivery refused', answer);
  const d = answer.body.delivery;
  return done(c, TO, {
    title: `Redelivered ${eventId}: ${d.statusCode ?? 'no answer'}${d.error ? ` (${d.error})` : ''}`,
  });
}

export function webhookRoutes() {
  return new Hono<ConsoleEnv>()
    .get('/', webhooksPage)
    .get('/live', async (c) => fragment(c, await deliveriesView(c)))
    .post('/', saveEndpoint)
    .post('/rotate', rotateSecret)
    .post('/redeliver', redeliver);
}
