import { Hono } from 'hono';
import { numberField } from '../format.js';
import { done, enc, errorFlash, failed, kept, page, takeFlash, type ConsoleEnv } from '../page.js';
import { remember } from '../session.js';
import { ActionButton, Badge, Empty, Field, TableWrap, Time, ColumnHeads, FormPanel } from '../ui.js';

// The operator view, for a session signed in with the operator token: accounts through /admin/v1 (create, look
// up, issue and revoke keys). The operator API lists no accounts, so the view remembers the ones seen here.

const TO = '/console/operator';

export function operatorRoutes() {
  return new Hono<ConsoleEnv>()
    .use('*', async (c, next) => {
      if (!c.get('session').adminToken) return c.redirect('/console', 303);
      await next();
    })
    .get('/', async (c) => {
      const flash = takeFlash(c);
      const csrf = c.get('session').csrf;
      const values = kept(flash, 'account');
      const seen = c.get('session').operatorAccounts;
      const body = (
        <>
          <div class="split">
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
          </div>
          <section class="panel" aria-labelledby="h-seen">
            <h2 id="h-seen">Accounts in this session</h2>
            {seen.length === 0 ? (
              <Empty>None yet.</Empty>
            ) : (
              <ul>
                {seen.map((id) => (
                  <li>
                    <a class="mono" href={`${TO}/account?id=${enc(id)}`}>
                      {id}
                    </a>
                  </li>
                ))}
              </ul>
            )}
          </section>
        </>
      );
      return page(c, { title: 'Accounts', active: 'Accounts', flash }, body);
    })
    .post('/accounts', async (c) => {
      const f = c.get('form');
      const answer = await c.get('api').post('/admin/v1/accounts', {
        ...(f.name?.trim() ? { name: f.name.trim() } : {}),
        ...(f.balance?.trim() ? { balance: numberField(f.balance) } : {}),
        ...(f.depositFeeRate?.trim() ? { depositFeeRate: f.depositFeeRate.trim() } : {}),
      });
      if (!answer.ok) return failed(c, TO, 'Account not created', answer, 'account');
      const id = String(answer.body.accountId);
      remember(c.get('session'), id);
      return done(c, `${TO}/account?id=${enc(id)}`, {
        title: `Account ${id} created`,
        reveal: [{ label: 'API key (shown once)', value: String(answer.body.apiKey) }],
      });
    })
    .get('/account', async (c) => {
      const id = c.req.query('id')?.trim() ?? '';
      const answer = await c.get('api').send('GET', `/admin/v1/accounts/${enc(id)}`);
      if (!answer.ok) {
        return page(
          c,
          { title: 'Account', active: 'Accounts', flash: errorFlash('Account not found', answer), status: 404 },
          <p>
            <a href={TO}>Back</a>
          </p>,
        );
      }
      remember(c.get('session'), id);
      const a = answer.body;
      const csrf = c.get('session').csrf;
      const base = `${TO}/accounts/${enc(id)}`;
      const body = (
        <>
          <section class="panel" aria-labelledby="h-acc">
            <h2 id="h-acc">{a.name || a.accountId}</h2>
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
          </section>
          <section class="panel" aria-labelledby="h-keys">
            <h2 id="h-keys">
              API keys <ActionButton action={`${base}/keys`} label="Issue key" csrf={csrf} kind="small" />
            </h2>
            <TableWrap label="API keys">
              <table>
                <ColumnHeads cols={['Key', 'Created', 'State', 'Actions']} />
                <tbody>
                  {(a.keys ?? []).map(
                    (k: { keyId: string; prefix: string; createdAt: string; revokedAt: string | null }) => (
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
                    ),
                  )}
                </tbody>
              </table>
            </TableWrap>
          </section>
          <p>
            <a href={TO}>Back</a>
          </p>
        </>
      );
      return page(c, { title: 'Account', active: 'Accounts', flash: takeFlash(c) }, body);
    })
    .post('/accounts/:id/keys', async (c) => {
      const id = c.req.param('id');
      const to = `${TO}/account?id=${enc(id)}`;
      const answer = await c.get('api').post(`/admin/v1/accounts/${enc(id)}/keys`);
      if (!answer.ok) return failed(c, to, 'Key not issued', answer);
      return done(c, to, {
        title: `Key ${answer.body.keyId} issued`,
        reveal: [{ label: 'API key (shown once)', value: String(answer.body.apiKey) }],
      });
    })
    .post('/accounts/:id/keys/:keyId/revoke', async (c) => {
      const id = c.req.param('id');
      const to = `${TO}/account?id=${enc(id)}`;
      const answer = await c
        .get('api')
        .send('DELETE', `/admin/v1/accounts/${enc(id)}/keys/${enc(c.req.param('keyId'))}`);
      return answer.ok ? done(c, to, { title: 'Key revoked' }) : failed(c, to, 'Key not revoked', answer);
    });
}
