import { createHash } from 'node:crypto';
import type { FC, PropsWithChildren } from 'hono/jsx';
import { SCRIPT, STYLE } from './assets.js';
import { isoOf, when } from './format.js';
import type { Flash } from './session.js';
import { Csrf } from './ui.js';

// The console's shell: every page's head, top bar (account time, sign-out), navigation, title and flash message.

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

// The assets are cached for an hour: their URLs carry a digest of their text, so a changed script is fetched anew.
const version = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);
const STYLE_URL = `/console/assets/console.css?v=${version(STYLE)}`;
const SCRIPT_URL = `/console/assets/console.js?v=${version(SCRIPT)}`;

const Head: FC<{ title: string }> = ({ title }) => (
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="color-scheme" content="light dark" />
    <title>{title} · Card Sandbox console</title>
    <link rel="stylesheet" href={STYLE_URL} />
    <script src={SCRIPT_URL} defer></script>
  </head>
);

const Brand = () => (
  <a class="brand" href="/console">
    <span class="logo" aria-hidden="true"></span>Card Sandbox
  </a>
);

const TopBar: FC<{ now?: string; csrf?: string }> = ({ now, csrf }) => (
  <header class="top">
    <Brand />
    <span class="tag">Sandbox</span>
    <span class="spacer"></span>
    {now !== undefined && (
      <span class="clock" id="account-time">
        Account time{' '}
        <strong>
          <time datetime={isoOf(now)}>{when(now)}</time>
        </strong>
      </span>
    )}
    <form method="post" action="/console/signout">
      <Csrf token={csrf} />
      <button class="secondary small" type="submit">
        Sign out
      </button>
    </form>
  </header>
);

const SideNav: FC<{ nav: readonly (readonly [string, string])[]; active?: string }> = ({ nav, active }) => (
  <nav class="side" aria-label="Console">
    <ul>
      {nav.map(([label, href]) => (
        <li>
          <a href={href} aria-current={active === label ? 'page' : undefined}>
            {label}
          </a>
        </li>
      ))}
    </ul>
  </nav>
);

/** A page: the head, then (unless bare, as sign-in is) the top bar and navigation around the page's title and flash. */
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
  return (
    <html lang="en">
      <Head title={p.title} />
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <TopBar now={p.now} csrf={p.csrf} />
        <div class="shell">
          <SideNav nav={p.nav ?? NAV} active={p.active} />
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

const FlashBox: FC<{ flash?: Flash }> = ({ flash }) => {
  if (!flash) return null;
  return (
    <div class={`flash ${flash.tone}`} role={flash.tone === 'error' ? 'alert' : 'status'}>
      <strong>{flash.title}</strong>
      {flash.error && (
        <span>
          Error <code>{flash.error.code}</code>: {flash.error.message}{' '}
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
