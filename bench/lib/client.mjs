// Plain HTTP helpers for setting up bench and crash-test data (Node's fetch; no test framework).

export const ADMIN_TOKEN = 'bench-admin-token';

export function client(baseUrl) {
  async function call(method, path, { body, headers = {} } = {}) {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, body: json, headers: res.headers };
  }
  const ok = (res, what) => {
    if (res.status >= 300) throw new Error(`${what}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  return {
    call,
    async admin(method, path, body) {
      return ok(
        await call(method, path, { body, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
        `${method} ${path}`,
      );
    },
    /** A partner or simulation call with the account's key; throws on a non-2xx. */
    async post(apiKey, path, body = {}, headers = {}) {
      return ok(await call('POST', path, { body, headers: { 'x-api-key': apiKey, ...headers } }), `POST ${path}`);
    },
    raw(apiKey, path, body = {}, headers = {}) {
      return call('POST', path, { body, headers: { 'x-api-key': apiKey, ...headers } });
    },
  };
}

/** An account with a big balance, no deposit address (no tronweb on the path) and unlimited inventory. */
export async function benchAccount(api, { balance = 1_000_000_000, depositFeeRate = '0.02' } = {}) {
  const acct = await api.admin('POST', '/admin/v1/accounts', { depositAddress: null, balance, depositFeeRate });
  await api.post(acct.apiKey, '/sandbox/v1/inventory', { binId: 'VISA-EFI-454924', available: 1_000_000_000 });
  return acct;
}
