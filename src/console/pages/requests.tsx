import { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import type { Schema } from '../api.js';
import { enc, errorFlash, fragment, notFound, page, takeFlash, type ConsoleEnv, type Ctx } from '../page.js';
import { Badge, Empty, Field, FilterForm, Json, Live, Panel, Table, Time } from '../ui.js';

// Requests: the account's request log (sandbox/v1/requests and requests/get), newest first; each row opens the
// full record, redacted by the API exactly as the logs are. The console's own calls (what it asks the API to draw its
// pages) are hidden unless asked for; what an injected fault did to a request and the answer's hint are shown. The
// list refreshes twice a second, so a request an integration makes shows within about a second, no reload.

const LIMIT = 50;
/** How often the list is read again while the page is open. */
const LIVE_EVERY_MS = 500;
/** Said wherever a request's time is shown: the request log keeps wall-clock time, not the account clock. */
const WALL_TIME = 'wall clock, UTC';

/** A row of the `requests` answer, and a full record of `requests/get`, as their contracts type them. */
type Summary = Schema<'sandbox.requests.response'>['requests'][number];
type FullRecord = Schema<'sandbox.requests.get.response'>;

interface Filter {
  path?: string;
  status?: string;
  /** `on`: the console's own calls are listed too. */
  console?: string;
  cursor?: string;
}

function filterOf(c: Ctx): Filter {
  const pick = (name: string) => c.req.query(name)?.trim() || undefined;
  return {
    path: pick('path'),
    status: pick('status'),
    console: pick('console') === 'on' ? 'on' : undefined,
    cursor: pick('cursor'),
  };
}

/** What a fault did, in a word or two for the list (the record page has the whole sentence). */
function faultLabel(f: NonNullable<Summary['fault']>): string {
  const seconds = (ms: number) => (ms < 10_000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);
  const wait = f.wait && `${f.wait.kind === 'hold' ? 'held' : 'delayed'} ${seconds(f.wait.ms)}`;
  const answer = f.answer === 'dropped' ? 'answer dropped' : f.answer === 'injected' ? 'injected answer' : undefined;
  return [wait, answer].filter(Boolean).join(', ');
}

const query = (f: Filter) =>
  Object.entries(f)
    .filter(([, v]) => v)
    .map(([k, v]) => `${k}=${enc(v!)}`)
    .join('&');

const RequestTable: FC<{ rows: readonly Summary[]; available: boolean }> = ({ rows, available }) =>
  rows.length === 0 ? (
    <Empty>{available ? 'No requests recorded yet.' : 'The request log is not available.'}</Empty>
  ) : (
    <Table
      label="Request log"
      cols={[
        `Time (${WALL_TIME})`,
        'Request',
        'Status',
        ['Code', 'hide-sm'],
        ['Latency', 'num hide-sm'],
        ['Fault', 'hide-sm'],
      ]}
      rows={rows}
      row={(r) => (
        <tr data-request-id={r.requestId} data-source={r.source}>
          <td class="nowrap">
            <Time value={r.time} />
          </td>
          <td>
            <a href={`/console/requests/${enc(r.requestId)}`} class="mono">
              {r.method} {r.path}
            </a>
            {r.source === 'console' && <span class="badge"> console</span>}
          </td>
          <td>
            <Badge value={r.status} />
          </td>
          <td class="hide-sm">{r.code ?? ''}</td>
          <td class="num hide-sm">{r.latencyMs} ms</td>
          <td class="hide-sm">
            {r.fault && (
              <span class={`badge ${r.fault.answer === 'sent' ? 'warn' : 'bad'}`} title={r.fault.text}>
                {faultLabel(r.fault)}
              </span>
            )}
          </td>
        </tr>
      )}
    />
  );

async function requestList(c: Ctx, f: Filter) {
  const status = f.status && /^\d{3}$/.test(f.status) ? Number(f.status) : f.status;
  const answer = await c.get('api').post('/sandbox/v1/requests', {
    limit: LIMIT,
    ...(f.path ? { path: f.path } : {}),
    ...(status ? { status } : {}),
    ...(f.console ? {} : { source: 'api' as const }),
    ...(f.cursor ? { cursor: f.cursor } : {}),
  });
  return { answer, view: <RequestTable rows={answer.ok ? answer.body.requests : []} available={answer.ok} /> };
}

async function requestsPage(c: Ctx) {
  const f = filterOf(c);
  const { answer, view } = await requestList(c, f);
  const flash = answer.ok ? takeFlash(c) : errorFlash('Request log not available', answer);
  const next = answer.ok ? answer.body.nextCursor : null;
  const body = (
    <Panel id="h-log" title="Newest first">
      <FilterForm action="/console/requests" label="Filter requests">
        <Field id="rq-path" label="Path" name="path" value={f.path} placeholder="/v1/card/create" />
        <Field id="rq-status" label="Status" name="status" value={f.status} placeholder="400 or 4xx" />
        <label class="check">
          <input type="checkbox" name="console" checked={f.console === 'on'} /> Show the console's own calls
        </label>
      </FilterForm>
      <p class="muted">
        {f.console
          ? 'The console’s own calls are listed too (it draws its pages through the same API), marked console.'
          : 'Your integration’s requests: the calls the console makes to draw its pages are hidden.'}{' '}
        Times are the wall clock (UTC) when each request arrived, not the account clock at the top of the page.
      </p>
      <Live src={f.cursor ? undefined : `/console/requests/live?${query(f)}`} label="Requests" everyMs={LIVE_EVERY_MS}>
        {view}
      </Live>
      {next && (
        <nav class="pager" aria-label="Pages">
          <a class="button secondary small" href={`/console/requests?${query({ ...f, cursor: next })}`}>
            Older
          </a>
        </nav>
      )}
    </Panel>
  );
  return page(c, { title: 'Requests', active: 'Requests', flash }, body);
}

const RequestRecord: FC<{ r: FullRecord }> = ({ r }) => (
  <>
    <Panel
      id="h-summary"
      title={
        <>
          <span class="mono">
            {r.method} {r.path}
          </span>
          <Badge value={r.status} />
        </>
      }
    >
      <dl class="props">
        <dt>Request ID</dt>
        <dd class="mono">{r.requestId}</dd>
        <dt>Time ({WALL_TIME})</dt>
        <dd>
          <Time value={r.time} />
        </dd>
        <dt>Made by</dt>
        <dd>
          {r.source === 'console' ? 'the console, to draw one of its pages' : 'the API (your integration or a tool)'}
        </dd>
        <dt>Fault</dt>
        <dd>{r.fault ? r.fault.text : 'none'}</dd>
        <dt>Hint</dt>
        <dd>{r.hint ?? '—'}</dd>
        <dt>Latency</dt>
        <dd>{r.latencyMs} ms</dd>
        <dt>API key</dt>
        <dd class="mono">{r.keyId}</dd>
        <dt>Idempotency key</dt>
        <dd class="mono">{r.idempotencyKey ?? '—'}</dd>
        <dt>Replayed</dt>
        <dd>{r.replayed ? 'yes' : 'no'}</dd>
      </dl>
    </Panel>
    <div class="split">
      <Panel id="h-req" title="Request">
        <Json value={r.request} label="Request headers and body" />
      </Panel>
      <Panel id="h-res" title="Response">
        <Json value={r.response} label="Response headers and body" />
      </Panel>
    </div>
  </>
);

async function requestPage(c: Ctx) {
  const answer = await c.get('api').post('/sandbox/v1/requests/get', { requestId: c.req.param('requestId') });
  if (!answer.ok) {
    return notFound(c, { title: 'Request', active: 'Requests', back: '/console/requests' }, 'Request', answer);
  }
  const body = (
    <>
      <RequestRecord r={answer.body} />
      <p>
        <a href="/console/requests">Back</a>
      </p>
    </>
  );
  return page(c, { title: 'Request', active: 'Requests', flash: takeFlash(c) }, body);
}

export function requestRoutes() {
  return new Hono<ConsoleEnv>()
    .get('/', requestsPage)
    .get('/live', async (c) => fragment(c, (await requestList(c, filterOf(c))).view))
    .get('/:requestId', requestPage);
}
