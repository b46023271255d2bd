import { Hono } from 'hono';
import type { components } from '../../contracts/api-types.js';
import { enc, errorFlash, fragment, page, takeFlash, type ConsoleEnv, type Ctx } from '../page.js';
import { Badge, Empty, Field, Json, TableWrap, Time, ColumnHeads } from '../ui.js';

// Requests: the account's request log (sandbox/v1/requests and requests/get), newest first; each row opens the
// full record, redacted by the API exactly as the logs are.

const LIMIT = 50;

/** A row of the `requests` answer, as its contract types it. */
type Summary = components['schemas']['sandbox.requests.response']['requests'][number];

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

async function requestList(c: Ctx, f: Filter) {
  const status = f.status && /^\d{3}$/.test(f.status) ? Number(f.status) : f.status;
  const answer = await c.get('api').post('/sandbox/v1/requests', {
    limit: LIMIT,
    ...(f.path ? { path: f.path } : {}),
    ...(status ? { status } : {}),
    ...(f.cursor ? { cursor: f.cursor } : {}),
  });
  const rows: Summary[] = answer.body.requests ?? [];
  const view =
    rows.length === 0 ? (
      <Empty>{answer.ok ? 'No requests recorded yet.' : 'The request log is not available.'}</Empty>
    ) : (
      <TableWrap label="Request log">
        <table>
          <ColumnHeads cols={['Time', 'Request', 'Status', ['Code', 'hide-sm'], ['Latency', 'num hide-sm']]} />
          <tbody>
            {rows.map((r) => (
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
            ))}
          </tbody>
        </table>
      </TableWrap>
    );
  return { answer, view };
}

export function requestRoutes() {
  return new Hono<ConsoleEnv>()
    .get('/', async (c) => {
      const f = filterOf(c);
      const { answer, view } = await requestList(c, f);
      const flash = answer.ok ? takeFlash(c) : errorFlash('Request log not available', answer);
      const next = answer.body.nextCursor;
      const body = (
        <section class="panel" aria-labelledby="h-log">
          <h2 id="h-log">Newest first</h2>
          <form method="get" action="/console/requests" class="row" aria-label="Filter requests">
            <Field id="rq-path" label="Path" name="path" value={f.path} placeholder="/v1/card/create" />
            <Field id="rq-status" label="Status" name="status" value={f.status} placeholder="400 or 4xx" />
            <button type="submit" class="secondary">
              Filter
            </button>
          </form>
          <h3 class="muted">The console's own calls are listed too: it uses the same API</h3>
          <div
            data-live={f.cursor ? undefined : `/console/requests/live?${query(f)}`}
            role="region"
            aria-label="Requests"
          >
            {view}
          </div>
          {next && (
            <nav class="pager" aria-label="Pages">
              <a class="button secondary small" href={`/console/requests?${query({ ...f, cursor: next })}`}>
                Older
              </a>
            </nav>
          )}
        </section>
      );
      return page(c, { title: 'Requests', active: 'Requests', flash }, body);
    })
    .get('/live', async (c) => fragment(c, (await requestList(c, filterOf(c))).view))
    .get('/:requestId', async (c) => {
      const requestId = c.req.param('requestId');
      const answer = await c.get('api').post('/sandbox/v1/requests/get', { requestId });
      if (!answer.ok) {
        return page(
          c,
          { title: 'Request', active: 'Requests', flash: errorFlash('Request not found', answer), status: 404 },
          <p>
            <a href="/console/requests">Back</a>
          </p>,
        );
      }
      const r = answer.body;
      const body = (
        <>
          <section class="panel" aria-labelledby="h-summary">
            <h2 id="h-summary">
              <span class="mono">
                {r.method} {r.path}
              </span>
              <Badge value={r.status} />
            </h2>
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
          </section>
          <div class="split">
            <section class="panel" aria-labelledby="h-req">
              <h2 id="h-req">Request</h2>
              <Json value={r.request} label="Request headers and body" />
            </section>
            <section class="panel" aria-labelledby="h-res">
              <h2 id="h-res">Response</h2>
              <Json value={r.response} label="Response headers and body" />
            </section>
          </div>
          <p>
            <a href="/console/requests">Back</a>
          </p>
        </>
      );
      return page(c, { title: 'Request', active: 'Requests', flash: takeFlash(c) }, body);
    });
}
