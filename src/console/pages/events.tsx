import { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { EVENT_TYPES as TYPES, type EventType } from '../../domain/events/types.js';
import { enc, errorFlash, fragment, page, takeFlash, type ConsoleEnv, type Ctx } from '../page.js';
import { Badge, Empty, FilterForm, Json, Live, Panel, Select, Time } from '../ui.js';
import type { SandboxEvent } from './views.js';

// Events: the account's outbox (sandbox/v1/events), filterable by type, each with its payload; refreshed live.

const LIMIT = 50;

const EventList: FC<{ events: readonly SandboxEvent[]; type?: EventType }> = ({ events, type }) =>
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

/** The type filter of the query, when it names one. */
const typeOf = (c: Ctx) => TYPES.find((t) => t === c.req.query('type'));

async function eventList(c: Ctx, type: EventType | undefined) {
  const answer = await c.get('api').post('/sandbox/v1/events', { limit: LIMIT, ...(type ? { type } : {}) });
  return { answer, view: <EventList events={answer.ok ? answer.body.events : []} type={type} /> };
}

async function eventsPage(c: Ctx) {
  const type = typeOf(c);
  const { answer, view } = await eventList(c, type);
  const flash = answer.ok ? takeFlash(c) : errorFlash('Events not available', answer);
  const body = (
    <Panel id="h-events" title="Newest first">
      <FilterForm action="/console/events" label="Filter events">
        <Select
          id="ev-type"
          label="Type"
          name="type"
          value={type}
          options={[['', 'All types'], ...TYPES.map((t) => [t, t] as const)]}
        />
      </FilterForm>
      <h3 class="muted">Payloads as delivered, without delivery-only fields (the 3DS code)</h3>
      <Live src={`/console/events/live${type ? `?type=${enc(type)}` : ''}`} label="Events">
        {view}
      </Live>
    </Panel>
  );
  return page(c, { title: 'Events', active: 'Events', flash }, body);
}

export function eventRoutes() {
  return new Hono<ConsoleEnv>()
    .get('/', eventsPage)
    .get('/live', async (c) => fragment(c, (await eventList(c, typeOf(c))).view));
}
