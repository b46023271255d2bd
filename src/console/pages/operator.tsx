import { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import type { Schema } from '../api.js';
import { numberField } from '../format.js';
import { done, enc, failed, kept, notFound, page, takeFlash, type ConsoleEnv, type Ctx } from '../page.js';
import { remember } from '../session.js';
import { ActionButton, Badge, Empty, Field, FormPanel, Panel, Table, Time } from '../ui.js';

// The operator view, for a session signed in with the operator token: accounts through /admin/v1 (create, look
// up, issue and revoke keys). The operator API lists no accounts, so the view remembers the ones seen here.

const TO = '/console/operator';

type Account = Schema<'admin.accounts.account'>;
type Key = Account['keys'][number];

const accountUrl = (id: string) => `${TO}/account?id=${enc(id)}`;

const CreateAccount: FC<{ csrf: string; values: Record<string, string> }> = ({ csrf, values }) => (
  <FormPanel id="f-account" title="Create account" action={`${TO}/accounts`} csrf={csrf}>
    <Field id="acc-name" label="Name" name="name" value={values.name} />
    <Field
      id="acc-balance"
      label="Balance"
      name="balance"
      value={values.balance}
      inputmode="decimal"
      hint="USDT seeded at once, optional"
    />
    <Field
      id="acc-rate"
      label="Deposit fee rate"
      name="depositFeeRate"
      value={values.depositFeeRate}
      placeholder="0.02"
    />
  </FormPanel>
);

const OpenAccount: FC = () => (
  <section class="panel">
    <h2 id="f-lookup">Open account</h2>
    <form method="get" action={`${TO}/account`} class="stack" aria-labelledby="f-lookup">
      <Field id="acc-id" label="Account ID" name="id" required />
      <div class="actions">
        <button type="submit" class="secondary">
          Open account
        </button>
      </div>
    </form>
  </section>
);

const SessionAccounts: FC<{ ids: readonly string[] }> = ({ ids }) => (
  <Panel id="h-seen" title="Accounts in this session">
    {ids.length === 0 ? (
      <Empty>None yet.</Empty>
    ) : (
      <ul>
        {ids.map((id) => (
          <li>
            <a class="mono" href={accountUrl(id)}>
              {id}
            </a>
          </li>
        ))}
      </ul>
    )}
  </Panel>
);

const AccountProps: FC<{ account: Account }> = ({ account: a }) => (
  <Panel id="h-acc" title={a.name || a.accountId}>
    <dl class="props">
      <dt>Account ID</dt>
      <dd class="mono">{a.accountId}</dd>
      <dt>Deposit fee rate</dt>
      <dd>{a.depositFeeRate}</dd>
      <dt>Deposit address</dt>
      <dd class="mono address">{a.depositAddress ?? '—'}</dd>
      <dt>Idempotency key required</dt>
      <dd>{a.requireIdempotencyKey ? 'yes' : 'no'}</dd>
      <dt>Created</dt>
      <dd>
        <Time value={a.createdAt} />
      </dd>
    </dl>
  </Panel>
);

const KeyRow: FC<{ k: Key; base: string; csrf: string }> = ({ k, base, csrf }) => (
  <tr>
    <td class="mono">
      {k.prefix}… <span class="muted">{k.keyId}</span>
    </td>
    <td class="nowrap">
      <Time value={k.createdAt} />
    </td>
    <td>{k.revokedAt ? <Badge value="REVOKED" /> : <Badge value="ACTIVE" />}</td>
    <td>
      {!k.revokedAt && (
        <ActionButton
          action={`${base}/keys/${enc(k.keyId)}/revoke`}
          label="Revoke"
          accessibleName={`Revoke ${k.keyId}`}
          csrf={csrf}
          kind="secondary small"
        />
      )}
    </td>
  </tr>
);

const Keys: FC<{ keys: readonly Key[]; base: string; csrf: string }> = ({ keys, base, csrf }) => (
  <Panel
    id="h-keys"
    title={
      <>
        API keys <ActionButton action={`${base}/keys`} label="Issue key" csrf={csrf} kind="small" />
      </>
    }
  >
    <Table
      label="API keys"
      cols={['Key', 'Created', 'State', 'Actions']}
      rows={keys}
      row={(k) => <KeyRow k={k} base={base} csrf={csrf} />}
    />
  </Panel>
);

function accountsPage(c: Ctx) {
  const flash = takeFlash(c);
  const body = (
    <>
      <div class="split">
        <CreateAccount csrf={c.get('session').csrf} values={kept(flash, 'account')} />
        <OpenAccount />
      </div>
      <SessionAccounts ids={c.get('session').operatorAccounts} />
    </>
  );
  return page(c, { title: 'Accounts', active: 'Accounts', flash }, body);
}

async function createAccount(c: Ctx) {
  const f = c.get('form');
  const answer = await c.get('api').post('/admin/v1/accounts', {
    ...(f.name?.trim() ? { name: f.name.trim() } : {}),
    ...(f.balance?.trim() ? { balance: numberField(f.balance) } : {}),
    ...(f.depositFeeRate?.trim() ? { depositFeeRate: f.depositFeeRate.trim() } : {}),
  });
  if (!answer.ok) return failed(c, TO, 'Account not created', answer, 'account');
  const id = answer.body.accountId;
  remember(c.get('session'), id);
  return done(c, accountUrl(id), {
    title: `Account ${id} created`,
    reveal: [{ label: 'API key (shown once)', value: answer.body.apiKey }],
  });
}

async function accountPage(c: Ctx) {
  const id = c.req.query('id')?.trim() ?? '';
  const answer = await c.get('api').send('GET', '/admin/v1/accounts/{id}', { params: { id } });
  if (!answer.ok) return notFound(c, { title: 'Account', active: 'Accounts', back: TO }, 'Account', answer);
  remember(c.get('session'), id);
  const csrf = c.get('session').csrf;
  const base = `${TO}/accounts/${enc(id)}`;
  const body = (
    <>
      <AccountProps account={answer.body} />
      <Keys keys={answer.body.keys} base={base} csrf={csrf} />
      <p>
        <a href={TO}>Back</a>
      </p>
    </>
  );
  return page(c, { title: 'Account', active: 'Accounts', flash: takeFlash(c) }, body);
}

async function issueKey(c: Ctx) {
  const id = c.req.param('id') ?? '';
  const answer = await c.get('api').send('POST', '/admin/v1/accounts/{id}/keys', { params: { id }, body: {} });
  if (!answer.ok) return failed(c, accountUrl(id), 'Key not issued', answer);
  return done(c, accountUrl(id), {
    title: `Key ${answer.body.keyId} issued`,
    reveal: [{ label: 'API key (shown once)', value: answer.body.apiKey }],
  });
}

async function revokeKey(c: Ctx) {
  const id = c.req.param('id') ?? '';
  const params = { id, keyId: c.req.param('keyId') ?? '' };
  const answer = await c.get('api').send('DELETE', '/admin/v1/accounts/{id}/keys/{keyId}', { params });
  return answer.ok
    ? done(c, accountUrl(id), { title: 'Key revoked' })
    : failed(c, accountUrl(id), 'Key not revoked', answer);
}

export function operatorRoutes() {
  return new Hono<ConsoleEnv>()
    .use('*', async (c, next) => {
      if (!c.get('session').adminToken) return c.redirect('/console', 303);
      await next();
    })
    .get('/', accountsPage)
    .post('/accounts', createAccount)
    .get('/account', accountPage)
    .post('/accounts/:id/keys', issueKey)
    .post('/accounts/:id/keys/:keyId/revoke', revokeKey);
}
