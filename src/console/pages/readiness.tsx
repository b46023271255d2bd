import { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import type { Schema } from '../api.js';
import { numberField } from '../format.js';
import { done, enc, errorFlash, failed, fragment, kept, page, takeFlash, type ConsoleEnv, type Ctx } from '../page.js';
import { ActionButton, Empty, Field, Live, Panel, PostForm, Submit, Table, Time } from '../ui.js';

// Readiness: start a readiness run (sandbox/v1/readiness/run), and the last runs (readiness/list) with each check's
// result, evidence and advice, refreshed live. A request id in the evidence opens the request log's record; a
// delivery id jumps to that delivery, listed with its attempts under its run.

const TO = '/console/readiness';

/** A run, one of its checks and one of its test deliveries, as the contracts type them. */
type RunView = Schema<'sandbox.readiness.run'>;
type CheckResult = Schema<'sandbox.readiness.check'>['result'];
type DeliveryView = Schema<'sandbox.readiness.delivery'>;

const RESULT_TEXT: Record<CheckResult, string> = { pass: 'pass', fail: 'fail', not_observed: 'not observed' };
const RESULT_TONE: Record<CheckResult, string> = { pass: 'ok', fail: 'bad', not_observed: '' };

const ResultBadge: FC<{ result: CheckResult }> = ({ result }) => (
  <span class={`badge ${RESULT_TONE[result]}`}>{RESULT_TEXT[result]}</span>
);

const StatusBadge: FC<{ status: RunView['status'] }> = ({ status }) => (
  <span class={`badge ${status === 'running' ? 'warn' : ''}`}>{status}</span>
);

/**
 * Each id a link: a delivery to its row on this page, a request to its record in the request log; and how many more
 * the check rests on beyond those listed.
 */
const Evidence: FC<{ ids: readonly string[]; omitted: number }> = ({ ids, omitted }) =>
  ids.length === 0 ? (
    <span class="muted">—</span>
  ) : (
    <>
      {ids.map((id) => (
        <div>
          <a class="mono" href={id.startsWith('rdl_') ? `#${id}` : `/console/requests/${enc(id)}`}>
            {id}
          </a>
        </div>
      ))}
      {omitted > 0 && <div class="muted">and {omitted} more</div>}
    </>
  );

/** What ended a run's window, as a partner reads it. */
const ENDED_BY: Record<NonNullable<RunView['endedBy']>, string> = {
  window: 'its window ended',
  stop: 'stopped',
  decided: 'every check was decided',
};

const ChecksTable: FC<{ run: RunView }> = ({ run }) => (
  <Table
    label={`Checks of ${run.runId}`}
    cols={['Result', 'Check', 'Evidence', 'Advice']}
    rows={run.checks}
    row={(c) => (
      <tr data-check={c.id}>
        <td>
          <ResultBadge result={c.result} />
        </td>
        <td>
          {c.title}
          <div class="mono muted">{c.id}</div>
        </td>
        <td>
          <Evidence ids={c.evidence} omitted={c.evidenceOmitted} />
          {c.paired && <div class="muted">Paired: {c.paired}</div>}
        </td>
        <td>{c.advice ?? ''}</td>
      </tr>
    )}
  />
);

const Attempts: FC<{ delivery: DeliveryView }> = ({ delivery }) =>
  delivery.attempts.length === 0 ? (
    <span class="muted">no answer yet</span>
  ) : (
    <>
      {delivery.attempts.map((a) => (
        <div>
          {a.status ?? 'no status'} · {a.latencyMs} ms{a.error ? ` · ${a.error}` : ''} · <Time value={a.time} />
        </div>
      ))}
    </>
  );

const DeliveriesTable: FC<{ run: RunView }> = ({ run }) => (
  <Table
    label={`Test deliveries of ${run.runId}`}
    cols={['Delivery', 'Check', 'Event', 'Attempts']}
    rows={run.deliveries}
    row={(d) => (
      <tr id={d.deliveryId}>
        <td class="mono">{d.deliveryId}</td>
        <td class="mono">{d.check}</td>
        <td class="mono">{d.eventId}</td>
        <td>
          <Attempts delivery={d} />
        </td>
      </tr>
    )}
  />
);

const RunItem: FC<{ run: RunView; open: boolean; csrf: string }> = ({ run, open, csrf }) => {
  const count = (r: CheckResult) => run.checks.filter((c) => c.result === r).length;
  return (
    <details class="item" id={run.runId} open={open} data-run-id={run.runId}>
      <summary>
        <strong class="mono">{run.runId}</strong>
        <StatusBadge status={run.status} />
        <span>
          {count('pass')} passed, {count('fail')} failed, {count('not_observed')} not observed
        </span>
        <Time value={run.startedAt} />
      </summary>
      <div class="body">
        <dl class="props">
          <dt>Window</dt>
          <dd>
            <Time value={run.startedAt} /> to <Time value={run.endsAt} />
          </dd>
          <dt>Ended</dt>
          <dd>
            {run.endedBy
              ? ENDED_BY[run.endedBy]
              : run.fullWindow
                ? 'not yet: runs its whole window'
                : "not yet: ends once every check is decided, or at the window's end"}
          </dd>
          <dt>Receiver</dt>
          <dd class="mono">{run.receiver ?? 'none: no webhook configured'}</dd>
        </dl>
        {run.status === 'running' && (
          <div class="actions">
            <ActionButton
              action={`${TO}/stop`}
              label="Stop run"
              csrf={csrf}
              kind="secondary small"
              fields={{ runId: run.runId }}
              accessibleName={`Stop run ${run.runId}`}
            />
          </div>
        )}
        <h3>Checks</h3>
        <ChecksTable run={run} />
        {run.deliveries.length > 0 && (
          <>
            <h3>Test deliveries</h3>
            <DeliveriesTable run={run} />
          </>
        )}
      </div>
    </details>
  );
};

const RunList: FC<{ runs: readonly RunView[]; csrf: string }> = ({ runs, csrf }) =>
  runs.length === 0 ? (
    <Empty>No readiness run yet.</Empty>
  ) : (
    <>
      {runs.map((run, i) => (
        <RunItem run={run} open={i === 0} csrf={csrf} />
      ))}
    </>
  );

const StartForm: FC<{ csrf: string; values: Record<string, string> }> = ({ csrf, values }) => (
  <Panel id="h-start" title="Start a readiness run">
    <p class="muted">
      Sends five signed test deliveries to your receiver, then watches your API use for the window: one keyed write
      loses its answer, the next gets a 500, one read gets a 429. Run your integration's tests meanwhile.
    </p>
    <PostForm action={TO} csrf={csrf} labelledBy="h-start" layout="row">
      <Field
        id="rd-url"
        label="Webhook URL"
        name="webhookUrl"
        value={values.webhookUrl}
        placeholder="https://example.com/webhooks"
        hint="Optional: the account's webhook URL by default"
      />
      <Field
        id="rd-window"
        label="Window (seconds)"
        name="windowSeconds"
        value={values.windowSeconds}
        inputmode="numeric"
        hint="Optional: 600 by default, at most 86400"
      />
      <label class="check">
        <input type="checkbox" name="fullWindow" checked={values.fullWindow === 'on'} /> Run the full window
      </label>
      <Submit>Start readiness run</Submit>
    </PostForm>
  </Panel>
);

async function runs(c: Ctx) {
  const answer = await c.get('api').post('/sandbox/v1/readiness/list', {});
  return { answer, runs: answer.ok ? answer.body.runs : [] };
}

async function readinessPage(c: Ctx) {
  const csrf = c.get('session').csrf;
  const { answer, runs: list } = await runs(c);
  const flash = answer.ok ? takeFlash(c) : errorFlash('Readiness runs not available', answer);
  const body = (
    <>
      <StartForm csrf={csrf} values={kept(flash, 'start')} />
      <Panel id="h-runs" title="Last runs">
        <Live src={`${TO}/live`} label="Readiness runs">
          <RunList runs={list} csrf={csrf} />
        </Live>
      </Panel>
    </>
  );
  return page(c, { title: 'Readiness', active: 'Readiness', flash }, body);
}

async function startRun(c: Ctx) {
  const form = c.get('form');
  const webhookUrl = (form.webhookUrl ?? '').trim();
  const windowSeconds = numberField(form.windowSeconds);
  const answer = await c.get('api').post('/sandbox/v1/readiness/run', {
    ...(webhookUrl ? { webhookUrl } : {}),
    ...(windowSeconds !== undefined ? { windowSeconds } : {}),
    ...(form.fullWindow === 'on' ? { fullWindow: true } : {}),
  });
  if (!answer.ok) return failed(c, TO, 'Readiness run not started', answer, 'start');
  return done(c, TO, { title: `Readiness run ${answer.body.runId} started: exercise your integration now` });
}

async function stopRun(c: Ctx) {
  const runId = c.get('form').runId ?? '';
  const answer = await c.get('api').post('/sandbox/v1/readiness/stop', { runId });
  if (!answer.ok) return failed(c, TO, 'Readiness run not stopped', answer);
  return done(c, TO, { title: `Readiness run ${runId} stopped` });
}

/** The Readiness page and its actions, each one call of the public API. */
export function readinessRoutes() {
  return new Hono<ConsoleEnv>()
    .get('/', readinessPage)
    .get('/live', async (c) => fragment(c, <RunList runs={(await runs(c)).runs} csrf={c.get('session').csrf} />))
    .post('/', startRun)
    .post('/stop', stopRun);
}
