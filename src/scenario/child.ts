import { send } from './http.js';

// Child sandboxes (docs/design.md section 12): with only an API key, a run against a running sandbox works in a child
// account it creates and deletes, so the key's own account (its cards, balance, webhook) is never changed.

/** Long enough for any run; a run that is killed leaves a child that the sandbox deletes when this expires. */
const TTL_SECONDS = 3600;

export interface Child {
  accountId: string;
  apiKey: string;
}

export interface ChildSettings {
  name: string;
  balance?: number | string;
  depositFeeRate?: string;
}

/** Whether the target offers child sandboxes to this key (a sandbox with /sandbox/v1/sandboxes answers the list). */
export async function offersChildren(baseUrl: string, apiKey: string): Promise<boolean> {
  const x = await send('POST', `${baseUrl.replace(/\/+$/, '')}/sandbox/v1/sandboxes/list`, { 'X-API-KEY': apiKey }, {});
  return x.status === 200 && Array.isArray((x.responseBody as { sandboxes?: unknown } | undefined)?.sandboxes);
}

/** Creates a child of the key's account; a refusal is thrown with the sandbox's message. */
export async function createChild(baseUrl: string, parentKey: string, settings: ChildSettings): Promise<Child> {
  const x = await send(
    'POST',
    `${baseUrl}/sandbox/v1/sandboxes/create`,
    { 'X-API-KEY': parentKey },
    {
      ...settings,
      name: settings.name.slice(0, 100),
      ttlSeconds: TTL_SECONDS,
    },
  );
  const body = x.responseBody as { accountId?: string; apiKey?: string; message?: string } | undefined;
  if (x.status !== 200 || !body?.accountId || !body.apiKey) {
    throw new Error(`cannot create a child sandbox: HTTP ${x.status}${body?.message ? ` ${body.message}` : ''}`);
  }
  return { accountId: body.accountId, apiKey: body.apiKey };
}

/** Deletes the child and everything in it; best effort (its TTL deletes it anyway). */
export async function deleteChild(baseUrl: string, parentKey: string, child: Child): Promise<void> {
  await send(
    'POST',
    `${baseUrl}/sandbox/v1/sandboxes/delete`,
    { 'X-API-KEY': parentKey },
    { accountId: child.accountId },
  );
}
