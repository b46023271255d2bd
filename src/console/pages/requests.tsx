import { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import type { Schema } from '../api.js';
import { enc, errorFlash, fragment, notFound, page, takeFlash, type ConsoleEnv, type Ctx } from '../page.js';
import { Badge, Empty, Field, FilterForm, Json, Live, Panel, Table, Time } from '../ui.js';

// Requests: the account's request log (sandbox/v1/requests and requests/get), newest first; each row opens the
// full record, redacted by the API exactly as the logs are.

const LIMIT = 50;

/** A row of the `requests` answer, and a full record of `requests/get`, as their contracts type them. */
type Summary = Schema<'sandbox.requests.response'>['requests'][number];
type FullRecord = Schema<'sandbox.requests.get.response'>;

interface Filter {
  path?: string;
  status?: string;
  cursor?: string;
}

function filterOf(c: Ctx): Filter {
  const pick = (name: string) => c.req.query(name)?.trim() || undefined;
  return { path: pick('path'), status: pick('status'), cursor: pick('cursor') };
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
      cols={['Time', 'Request', 'Status', ['Code', 'hide-sm'], ['Latency', 'num hide-sm']]}
      rows={rows}
      row={(r) => (
        <tr data-request-id={r.requestId}>
          <td class="nowrap">
            <Time value={r.time} />
          </td>
          <td>
            <a href={`/console/requests/${enc(r.requestId)}`} class="mono">
              {r.method} {r.path}
            </a>
          </td>
          <td>
            <Badge value={r.status} />
          </td>
          <td class="hide-sm">{r.code ?? ''}</td>
          <td class="num hide-sm">{r.latencyMs} ms</td>
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
      </FilterForm>
      <h3 class="muted">The console's own calls are listed too: it uses the same API</h3>
      <Live src={f.cursor ? undefined : `/console/requests/live?${query(f)}`} label="Requests">
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
        <dt>Time</dt>
        <dd>
          <Time value={r.time} />
        </dd>
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
