// What a refused key's headers tell (docs/design.md, hints): the spec answers a missing and a wrong key alike
// (11002, "Invalid or revoked API key"); the Sandbox-Hint says which it was, and the usual slips. Nothing here
// looks a key up or prints one: the hints name header names and prefixes only.

/** A header name fit to print: plain, short (a name is the client's text). */
const PRINTABLE_NAME = /^[A-Za-z0-9_-]{1,40}$/;
/** Names a key is often sent under by mistake. */
const KEYISH = /^(?:x[-_]?)?api[-_]?key$|^x[-_]api[-_]token$/i;

/**
 * The hint of a request without an X-API-KEY header; `names`: the request's header names; `readyAccount`: whether this
 * server makes a ready account and prints its key (a local server), or keys come from an operator only (hosted).
 */
export function missingKeyHint(names: readonly string[], readyAccount: boolean): string {
  const lower = names.map((n) => n.toLowerCase());
  const base = 'No X-API-KEY header was sent: send your API key in X-API-KEY';
  if (lower.includes('authorization'))
    return `${base}, as the value alone; an Authorization header was sent, and this API reads the key from X-API-KEY only (no Bearer scheme).`;
  const near = names.find((n) => n.toLowerCase() !== 'x-api-key' && KEYISH.test(n) && PRINTABLE_NAME.test(n));
  if (near) return `${base}; a header named ${near} was sent, which this API does not read.`;
  return readyAccount
    ? `${base} (the server prints the ready account's key on the first start of its database; the console signs in with it).`
    : `${base} (keys are issued by the operator: POST /admin/v1/accounts/{id}/keys).`;
}

/** The hint of a request whose X-API-KEY matched no active key. */
export function wrongKeyHint(value: string): string {
  const given = value.trim();
  if (/^bearer\s/i.test(given)) return 'X-API-KEY starts with "Bearer": send the key alone, without a scheme.';
  if (/^["'].*["']$/.test(given)) return 'X-API-KEY is quoted: send the key alone, without quotes.';
  if (given.startsWith('whsec_'))
    return 'X-API-KEY holds a webhook signing secret (whsec_...), not an API key: send the key (sk_...).';
  return (
    'X-API-KEY was sent but is no active key of this server: unknown here, revoked, or the key of a child sandbox that ' +
    'was deleted or expired. A key lives in the database of the server that issued it: a new database (--db :memory:, ' +
    'a deleted ./data) knows none of the keys an earlier one printed.'
  );
}
