import { Hono } from 'hono';
import { done, failed, fragment, kept, page, takeFlash, type ConsoleEnv, type Ctx } from '../page.js';
import { ActionButton, Badge, Csrf, Empty, Field, Json, TableWrap, Time, ColumnHeads } from '../ui.js';

// Webhooks: the endpoint (GET/PUT /v1/webhook, rotate-secret) and the deliveries (sandbox events with their
// attempts), refreshed live.

const TO = '/console/webhooks';
const EVENTS_SHOWN = 30;

interface Attempt {
  eventId: string;
  attempt: number;
  redelivery: boolean;
  at: string;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
  nextRetryAt: string | null;
}

interface EventRow {
  id: string;
  type: string;
  created: number;
  data: unknown;
  delivery: { state: string; attempts: number; nextAttemptAt: string | null };
}

async function deliveriesView(c: Ctx) {
  const api = c.get('api');
  const [events, attempts] = await Promise.all([
    api.post('/sandbox/v1/events', { limit: EVENTS_SHOWN }),
    api.post('/sandbox/v1/webhook/deliveries', { limit: 1000 }),
  ]);
  const byEvent = new Map<string, Attempt[]>();
  for (const a of (attempts.body.deliveries ?? []) as Attempt[]) {
    byEvent.set(a.eventId, [...(byEvent.get(a.eventId) ?? []), a]);
  }
  const rows: EventRow[] = events.body.events ?? [];
  const csrf = c.get('session').csrf;
  if (rows.length === 0) return <Empty>No events yet.</Empty>;
  return (
    <>
      {rows.map((e) => {
        const tries = byEvent.get(e.id) ?? [];
        return (
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
              {tries.length === 0 ? (
                <Empty>No attempt yet.</Empty>
              ) : (
                <TableWrap label={`Attempts of ${e.id}`}>
                  <table>
                    <ColumnHeads cols={['#', 'Time', 'Status', ['Latency', 'num'], 'Error', 'Next retry']} />
                    <tbody>
                      {tries.map((a) => (
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
                      ))}
                    </tbody>
                  </table>
                </TableWrap>
              )}
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
      })}
    </>
  );
}

export function webhookRoutes() {
  return new Hono<ConsoleEnv>()
    .get('/', async (c) => {
      const flash = takeFlash(c);
      const csrf = c.get('session').csrf;
      const [config, deliveries] = await Promise.all([c.get('api').send('GET', '/v1/webhook'), deliveriesView(c)]);
      const w = config.body;
      const values = kept(flash, 'endpoint');
      const checked = (name: string, current: boolean) =>
        flash?.form === 'endpoint' ? values[name] === 'on' : current;
      const body = (
        <>
          <section class="panel" aria-labelledby="h-endpoint">
            <h2 id="h-endpoint">
              Endpoint{' '}
              {w.configured ? <Badge value={w.enabled ? 'ACTIVE' : 'FROZEN'} /> : <Badge value="not configured" />}
            </h2>
            {w.configured && (
              <p class="muted">
                Signing secret <code>{w.secretPrefix}…</code> (the full secret is shown once, when created or rotated)
              </p>
            )}
            <form method="post" action={TO} class="stack" aria-labelledby="h-endpoint">
              <Csrf token={csrf} />
              <Field
                id="wh-url"
                label="URL"
                name="url"
                value={values.url ?? w.url ?? ''}
                placeholder="https://example.com/webhooks"
                required
              />
              <label class="check">
                <input type="checkbox" name="enabled" checked={checked('enabled', w.configured ? w.enabled : true)} />{' '}
                Enabled
              </label>
              <label class="check">
                <input
                  type="checkbox"
                  name="deliver3dsCode"
                  checked={checked('deliver3dsCode', Boolean(w.deliver3dsCode))}
                />{' '}
                Deliver 3DS codes
              </label>
              <div class="actions">
                <button type="submit">Save endpoint</button>
              </div>
            </form>
            {w.configured && (
              <div class="actions">
                <ActionButton action={`${TO}/rotate`} label="Rotate secret" csrf={csrf} kind="secondary" />
              </div>
            )}
          </section>
          <section class="panel" aria-labelledby="h-deliveries">
            <h2 id="h-deliveries">Deliveries</h2>
            <div data-live={`${TO}/live`} role="region" aria-label="Deliveries">
              {deliveries}
            </div>
          </section>
        </>
      );
      return page(c, { title: 'Webhooks', active: 'Webhooks', flash }, body);
    })
    .get('/live', async (c) => fragment(c, await deliveriesView(c)))
    .post('/', async (c) => {
      const form = c.get('form');
      const answer = await c.get('api').send('PUT', '/v1/webhook', {
        url: (form.url ?? '').trim(),
        enabled: form.enabled === 'on',
        deliver3dsCode: form.deliver3dsCode === 'on',
      });
      if (!answer.ok) return failed(c, TO, 'Endpoint not saved', answer, 'endpoint');
      const reveal = answer.body.secret
        ? [{ label: 'Signing secret (shown once)', value: String(answer.body.secret) }]
        : undefined;
      return done(c, TO, { title: 'Endpoint saved', reveal });
    })
    .post('/rotate', async (c) => {
      const answer = await c.get('api').post('/v1/webhook/rotate-secret', {});
      if (!answer.ok) return failed(c, TO, 'Secret not rotated', answer);
      return done(c, TO, {
        title: 'Secret rotated: the old one no longer signs',
        reveal: [{ label: 'New signing secret (shown once)', value: String(answer.body.secret) }],
      });
    })
    .post('/redeliver', async (c) => {
      const eventId = c.get('form').eventId ?? '';
      const answer = await c.get('api').post('/sandbox/v1/webhook/redeliver', { eventId });
      if (!answer.ok) return failed(c, TO, 'Redelivery refused', answer);
      const d = answer.body.delivery ?? {};
      return done(c, TO, {
        title: `Redelivered ${eventId}: ${d.statusCode ?? 'no answer'}${d.error ? ` (${d.error})` : ''}`,
      });
    });
}
