// Autocannon options for keyed writes: every request carries an Idempotency-Key no earlier request used.

/** Every request carries a fresh Idempotency-Key (`prefix`-n); `next()` gives the body. */
export function keyed(url, apiKey, prefix, next, onResponse) {
  let n = 0;
  return {
    url,
    requests: [
      {
        method: 'POST',
        setupRequest(req) {
          req.headers = {
            'content-type': 'application/json',
            'x-api-key': apiKey,
            'idempotency-key': `${prefix}-${++n}`,
          };
          req.body = JSON.stringify(next());
          return req;
        },
        onResponse,
      },
    ],
  };
}
