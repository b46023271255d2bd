import type { Child, FC, PropsWithChildren } from 'hono/jsx';
import { isoOf, money, when } from './format.js';
import type { Flash } from './session.js';

// The console's shell and the few components every page shares, so all pages look and behave alike.

export const NAV = [
  ['Home', '/console'],
  ['Cards', '/console/cards'],
  ['Transactions', '/console/transactions'],
  ['Simulate', '/console/simulate'],
  ['Webhooks', '/console/webhooks'],
  ['Requests', '/console/requests'],
  ['Events', '/console/events'],
  ['Readiness', '/console/readiness'],
] as const;

export const OPERATOR_NAV = [['Accounts', '/console/operator']] as const;

export interface ShellProps {
  title: string;
  /** The nav entry of this page. */
  active?: string;
  nav?: readonly (readonly [string, string])[];
  csrf?: string;
  /** The account clock (ISO), shown on every page. */
  now?: string;
  flash?: Flash;
  bare?: boolean;
}

const Head: FC<{ title: string }> = ({ title }) => (
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="color-scheme" content="light dark" />
    <title>{title} · Card Sandbox console</title>
    <link rel="stylesheet" href="/console/assets/console.css" />
    <script src="/console/assets/console.js" defer></script>
  </head>
);

const Brand = () => (
  <a class="brand" href="/console">
    <span class="logo" aria-hidden="true"></span>Card Sandbox
  </a>
);

export const Shell: FC<PropsWithChildren<ShellProps>> = (p) => {
  if (p.bare) {
    return (
      <html lang="en">
        <Head title={p.title} />
        <body>
          <main id="main" class="signin">
            <Brand />
            {p.children}
          </main>
        </body>
      </html>
    );
  }
  const nav = p.nav ?? NAV;
  return (
    <html lang="en">
      <Head title={p.title} />
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <Brand />
          <span class="tag">Sandbox</span>
          <span class="spacer"></span>
          {p.now !== undefined && (
            <span class="clock" id="account-time">
              Account time{' '}
              <strong>
                <time datetime={isoOf(p.now)}>{when(p.now)}</time>
              </strong>
            </span>
          )}
          <form method="post" action="/console/signout">
            <Csrf token={p.csrf} />
            <button class="secondary small" type="submit">
              Sign out
            </button>
          </form>
        </header>
        <div class="shell">
          <nav class="side" aria-label="Console">
            <ul>
              {nav.map(([label, href]) => (
                <li>
                  <a href={href} aria-current={p.active === label ? 'page' : undefined}>
                    {label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <main id="main">
            <h1>{p.title}</h1>
            <FlashBox flash={p.flash} />
            {p.children}
          </main>
        </div>
      </body>
    </html>
  );
};

export const Csrf: FC<{ token?: string }> = ({ token }) => <input type="hidden" name="_csrf" value={token ?? ''} />;

export const FlashBox: FC<{ flash?: Flash }> = ({ flash }) => {
  if (!flash) return null;
  return (
    <div class={`flash ${flash.tone}`} role={flash.tone === 'error' ? 'alert' : 'status'}>
      <strong>{flash.title}</strong>
      {flash.error && (
        <span>
          Error <code>{String(flash.error.code)}</code>: {String(flash.error.message)}{' '}
          <span class="muted">(HTTP {flash.error.status})</span>
        </span>
      )}
      {flash.reveal?.map((r) => (
        <div class="secret">
          <span>{r.label}</span>
          <code>{r.value}</code>
        </div>
      ))}
    </div>
  );
};

/** An action button in its own CSRF-protected form. */
export const ActionButton: FC<{
  action: string;
  label: string;
  csrf: string;
  kind?: 'secondary' | 'danger' | 'small' | 'secondary small';
  fields?: Record<string, string>;
  accessibleName?: string;
}> = (p) => (
  <form method="post" action={p.action}>
    <Csrf token={p.csrf} />
    {Object.entries(p.fields ?? {}).map(([name, value]) => (
      <input type="hidden" name={name} value={value} />
    ))}
    <button type="submit" class={p.kind} aria-label={p.accessibleName}>
      {p.label}
    </button>
  </form>
);

export const Field: FC<{
  label: string;
  name: string;
  value?: string;
  type?: string;
  hint?: string;
  required?: boolean;
  inputmode?: 'decimal' | 'numeric';
  placeholder?: string;
  id: string;
}> = (p) => (
  <div class="field">
    <label for={p.id}>{p.label}</label>
    <input
      id={p.id}
      name={p.name}
      type={p.type ?? 'text'}
      value={p.value ?? ''}
      required={p.required}
      inputmode={p.inputmode}
      placeholder={p.placeholder}
      autocomplete="off"
      aria-describedby={p.hint ? `${p.id}-hint` : undefined}
    />
    {p.hint && (
      <span class="hint" id={`${p.id}-hint`}>
        {p.hint}
      </span>
    )}
  </div>
);

export const Select: FC<{
  label: string;
  name: string;
  id: string;
  value?: string;
  options: readonly (readonly [string, string])[];
}> = (p) => (
  <div class="field">
    <label for={p.id}>{p.label}</label>
    <select id={p.id} name={p.name}>
      {p.options.map(([value, text]) => (
        <option value={value} selected={value === (p.value ?? '')}>
          {text}
        </option>
      ))}
    </select>
  </div>
);

/** A right-aligned two-decimal amount cell. */
export const Amount: FC<{ value: unknown; currency?: string }> = ({ value, currency }) => (
  <td class="num">
    {money(value)}
    {currency ? ` ${currency}` : ''}
  </td>
);

const TONES: Record<string, string> = {
  ACTIVE: 'ok',
  COMPLETED: 'ok',
  CLEARED: 'ok',
  delivered: 'ok',
  APPROVED: 'ok',
  FROZEN: 'warn',
  PENDING: 'warn',
  pending: 'warn',
  CANCELLING: 'warn',
  FAILED: 'bad',
  DECLINED: 'bad',
  failed: 'bad',
  CANCELLED: 'bad',
  REVERTED: '',
  REFUND: '',
};

export const Badge: FC<{ value: unknown }> = ({ value }) => (
  <span class={`badge ${TONES[String(value)] ?? ''}`}>{String(value ?? '—')}</span>
);

export const Time: FC<{ value: unknown }> = ({ value }) => <time datetime={isoOf(value)}>{when(value)}</time>;

/** A horizontally scrollable table, reachable by keyboard (axe: scrollable regions must be focusable). */
export const TableWrap: FC<PropsWithChildren<{ label: string }>> = ({ label, children }) => (
  <div class="table-wrap" role="region" aria-label={label} tabindex={0}>
    {children}
  </div>
);

/**
 * A panel holding one posted form: its heading names the form (aria-labelledby), then the CSRF token, the fields
 * and one submit button (labelled as the heading unless `submit` says otherwise); `after` follows the form.
 */
export const FormPanel: FC<
  PropsWithChildren<{ id: string; title: string; action: string; csrf?: string; submit?: string; after?: Child }>
> = (p) => (
  <section class="panel">
    <h2 id={p.id}>{p.title}</h2>
    <form method="post" action={p.action} class="stack" aria-labelledby={p.id}>
      <Csrf token={p.csrf} />
      {p.children}
      <div class="actions">
        <button type="submit">{p.submit ?? p.title}</button>
      </div>
    </form>
    {p.after}
  </section>
);

/** A table's header row: each column a name, or a name and its class (`num` right-aligns, `hide-sm` hides on phones). */
export const ColumnHeads: FC<{ cols: readonly (string | readonly [string, string])[] }> = ({ cols }) => (
  <thead>
    <tr>
      {cols.map((col) =>
        typeof col === 'string' ? (
          <th scope="col">{col}</th>
        ) : (
          <th scope="col" class={col[1]}>
            {col[0]}
          </th>
        ),
      )}
    </tr>
  </thead>
);

export const Empty: FC<PropsWithChildren> = ({ children }) => <p class="empty">{children}</p>;

export const Json: FC<{ value: unknown; label?: string }> = ({ value, label }) => (
  <pre tabindex={0} aria-label={label ?? 'JSON'}>
    {JSON.stringify(value, null, 2)}
  </pre>
);

export type { Child };
