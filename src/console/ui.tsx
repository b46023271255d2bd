import { randomUUID } from 'node:crypto';
import type { Child, FC, PropsWithChildren } from 'hono/jsx';
import { belowZero, isoOf, money, when } from './format.js';

// The few components every page shares, so all pages look and behave alike: forms and their fields, action
// buttons, tables, badges, amounts and times.

export const Csrf: FC<{ token?: string }> = ({ token }) => <input type="hidden" name="_csrf" value={token ?? ''} />;

/**
 * The Idempotency-Key of the keyed write a form makes (its handler passes `idempotencyKey` to the call): one drawn for
 * each form shown, so a form sent twice (a double click, the browser sending it again) is one operation, not two.
 */
export const OperationKey: FC = () => <input type="hidden" name="idempotencyKey" value={randomUUID()} />;

/** An action button in its own CSRF-protected form; `keyed` for a keyed write (see `OperationKey`). */
export const ActionButton: FC<{
  action: string;
  label: string;
  csrf: string;
  kind?: 'secondary' | 'danger' | 'small' | 'secondary small';
  fields?: Record<string, string>;
  accessibleName?: string;
  keyed?: boolean;
}> = (p) => (
  <form method="post" action={p.action}>
    <Csrf token={p.csrf} />
    {p.keyed && <OperationKey />}
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

/** Said beside a balance below zero: a clearing the card could not cover left it in debt. */
export const BelowZero: FC<{ value: unknown }> = ({ value }) =>
  belowZero(value) ? <span class="badge bad">Below zero</span> : null;

export const Badge: FC<{ value: unknown }> = ({ value }) => (
  <span class={`badge ${TONES[String(value)] ?? ''}`}>{String(value ?? '—')}</span>
);

export const Time: FC<{ value: unknown }> = ({ value }) => <time datetime={isoOf(value)}>{when(value)}</time>;

/** A horizontally scrollable table, reachable by keyboard (axe: scrollable regions must be focusable). */
const TableWrap: FC<PropsWithChildren<{ label: string }>> = ({ label, children }) => (
  <div class="table-wrap" role="region" aria-label={label} tabindex={0}>
    {children}
  </div>
);

/** A panel named by its heading, so a screen reader lists it among the page's regions. */
export const Panel: FC<PropsWithChildren<{ id: string; title: Child }>> = (p) => (
  <section class="panel" aria-labelledby={p.id}>
    <h2 id={p.id}>{p.title}</h2>
    {p.children}
  </section>
);

/**
 * A region the console's script refreshes from `src` while the page is open (none: it stays as it is), every
 * `everyMs` (default 2,000).
 */
export const Live: FC<PropsWithChildren<{ src?: string; label: string; everyMs?: number }>> = (p) => (
  <div data-live={p.src} data-every={p.everyMs} role="region" aria-label={p.label}>
    {p.children}
  </div>
);

/** A form posted with the session's CSRF token, named by the heading `labelledBy`; fields stack or sit in a row. */
export const PostForm: FC<
  PropsWithChildren<{ action: string; csrf?: string; labelledBy: string; layout?: 'stack' | 'row' }>
> = (p) => (
  <form method="post" action={p.action} class={p.layout} aria-labelledby={p.labelledBy}>
    <Csrf token={p.csrf} />
    {p.children}
  </form>
);

/** A GET form that filters a list (its label names it): the fields, then a Filter button. */
export const FilterForm: FC<PropsWithChildren<{ action: string; label: string }>> = (p) => (
  <form method="get" action={p.action} class="row" aria-label={p.label}>
    {p.children}
    <button type="submit" class="secondary">
      Filter
    </button>
  </form>
);

/** A form's submit button, in the actions row. */
export const Submit: FC<PropsWithChildren> = ({ children }) => (
  <div class="actions">
    <button type="submit">{children}</button>
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
    <PostForm action={p.action} csrf={p.csrf} labelledBy={p.id} layout="stack">
      {p.children}
      <Submit>{p.submit ?? p.title}</Submit>
    </PostForm>
    {p.after}
  </section>
);

/** Columns of a table: each a name, or a name and its class (`num` right-aligns, `hide-sm` hides on phones). */
export type Columns = readonly (string | readonly [string, string])[];

/** A table's header row. */
const ColumnHeads: FC<{ cols: Columns }> = ({ cols }) => (
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

/** A table in its scrollable region: the column heads, then one row per item. */
export function Table<R>(p: { label: string; cols: Columns; rows: readonly R[]; row: (item: R) => Child }) {
  return (
    <TableWrap label={p.label}>
      <table>
        <ColumnHeads cols={p.cols} />
        <tbody>{p.rows.map((item) => p.row(item))}</tbody>
      </table>
    </TableWrap>
  );
}

export const Empty: FC<PropsWithChildren> = ({ children }) => <p class="empty">{children}</p>;

export const Json: FC<{ value: unknown; label?: string }> = ({ value, label }) => (
  <pre tabindex={0} aria-label={label ?? 'JSON'}>
    {JSON.stringify(value, null, 2)}
  </pre>
);

export type { Child };
