import { Hono } from 'hono';
import { enc, errorFlash, fragment, page, takeFlash, type ConsoleEnv, type Ctx } from '../page.js';
import { EVENT_TYPES as TYPES } from '../../domain/event-types.js';
import { Badge, Empty, Json, Select, Time } from '../ui.js';

// Events: the account's outbox (sandbox/v1/events), filterable by type, each with its payload; refreshed live.

const LIMIT = 50;

async function eventList(c: Ctx, type: string | undefined) {
  const answer = await c.get('api').post('/sandbox/v1/events', { limit: LIMIT, ...(type ? { type } : {}) });
  const events: { id: string; type: string; created: number; data: unknown; delivery: { state: string } }[] =
    answer.body.events ?? [];
  const view =
    events.length === 0 ? (
      <Empty>No events{type ? ` of type ${type}` : ''} yet.</Empty>
    ) : (
      <>
        {events.map((e) => (
          <details class="item" id={`e-${e.id}`} data-event-id={e.id}>
            <summary>
              <strong>{e.type}</strong>
              <span class="mono muted">{e.id}</span>
              <Time value={e.created} />
              <Badge value={e.delivery.state} />
            </summary>
            <div class="body">
              <Json value={{ id: e.id, type: e.type, created: e.created, data: e.data }} label={`Payload of ${e.id}`} />
            </div>
          </details>
        ))}
      </>
    );
  return { answer, view };
}

export function eventRoutes() {
  return new Hono<ConsoleEnv>()
    .get('/', async (c) => {
      const type = TYPES.find((t) => t === c.req.query('type'));
      const { answer, view } = await eventList(c, type);
      const flash = answer.ok ? takeFlash(c) : errorFlash('Events not available', answer);
      const body = (
        <section class="panel" aria-labelledby="h-events">
          <h2 id="h-events">Newest first</h2>
          <form method="get" action="/console/events" class="row" aria-label="Filter events">
            <Select
              id="ev-type"
              label="Type"
              name="type"
              value={type}
              options={[['', 'All types'], ...TYPES.map((t) => [t, t] as const)]}
            />
            <button type="submit" class="secondary">
              Filter
            </button>
          </form>
          <h3 class="muted">Payloads as delivered, without delivery-only fields (the 3DS code)</h3>
          <div data-live={`/console/events/live${type ? `?type=${enc(type)}` : ''}`} role="region" aria-label="Events">
            {view}
          </div>
        </section>
      );
      return page(c, { title: 'Events', active: 'Events', flash }, body);
    })
    .get('/live', async (c) => {
      const type = TYPES.find((t) => t === c.req.query('type'));
      return fragment(c, (await eventList(c, type)).view);
    });
}
