// One event's full retry schedule (1 attempt + 6 retries over about 17.6 hours of account time), simulated by
// one clock advance against a receiver that always fails. Needs the webhooks module; skipped without it.
import { createServer } from 'node:http';

const SCHEDULE_SECONDS = 18 * 3600; // past the last retry at 1m+5m+30m+2h+5h+10h = 17.6 h

export async function webhookSchedule(api, acct) {
  const hits = [];
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits.push(req.headers);
      res.writeHead(500).end();
    });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${receiver.address().port}/hook`;
    const put = await api.call('PUT', '/v1/webhook', {
      body: { url, enabled: true },
      headers: { 'x-api-key': acct.apiKey },
    });
    if (put.status === 404) return { skipped: 'PUT /v1/webhook is absent (the webhooks branch is not merged)' };
    if (put.status < 200 || put.status > 299)
      return { skipped: `PUT /v1/webhook answered ${put.status} ${JSON.stringify(put.body)}` };
    await api.post(acct.apiKey, '/sandbox/v1/clock', { mode: 'frozen' });
    await api.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
    // Let the first attempt (kicked off the request path) land before the clock moves.
    for (let i = 0; i < 100 && hits.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const started = performance.now();
    await api.post(acct.apiKey, '/sandbox/v1/clock', { advanceSeconds: SCHEDULE_SECONDS });
    const ms = performance.now() - started;
    const ids = new Set(hits.map((h) => h['service-event-id']));
    return { ms, attempts: hits.length, distinctEventIds: ids.size };
  } finally {
    receiver.close();
  }
}
