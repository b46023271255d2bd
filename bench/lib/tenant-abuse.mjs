// The abusive tenant of the noisy-neighbour run that abuses through its child sandboxes (each child a key of its
// own, which used to bring budgets of its own): latency faults that hold connections, floods from every child,
// console sign-ins posting oversized forms, and large request-log bodies. Used by bench:hosted (figures) and
// test/hosted/noisy-neighbour.test.ts (outcomes only). Loopback only; bounded in count.
import { Agent, request } from 'node:http';
import { abuse } from './noisy.mjs';

const json = { 'content-type': 'application/json' };

function send(baseUrl, { method = 'POST', path, headers = {}, body, agent = false }) {
  return new Promise((resolve) => {
    let settled = false;
    const done = (status, text = '') => {
      if (settled) return;
      settled = true;
      resolve({ status, text });
    };
    const req = request(new URL(path, baseUrl), { method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text.length < 65_536 ? (text += d) : undefined));
      res.on('end', () => done(res.statusCode ?? 0, text));
      res.on('error', () => done(res.statusCode ?? 0, text));
    });
    req.on('error', () => done(0));
    req.end(body);
  });
}

/** A console session of `key`: its cookie and CSRF token, or undefined when sign-in was refused. */
async function consoleSession(baseUrl, key) {
  const signin = await new Promise((resolve) => {
    const req = request(
      new URL('/console/signin', baseUrl),
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, cookie: String(res.headers['set-cookie'] ?? '') }));
      },
    );
    req.on('error', () => resolve({ status: 0, cookie: '' }));
    req.end(`apiKey=${encodeURIComponent(key)}`);
  });
  const cookie = signin.cookie.split(';')[0];
  if (signin.status !== 303 || !cookie) return { status: signin.status };
  const page = await send(baseUrl, { method: 'GET', path: '/console/cards', headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
  return { status: signin.status, cookie, csrf };
}

/**
 * Starts the abuse of one tenant through `children` child sandboxes of `parentKey`. `latencyMs` is the fault that
 * holds each child's card/list; `heldPerSecond` how many such requests the tenant opens a second.
 */
export async function startTenantAbuse(
  baseUrl,
  parentKey,
  { children = 12, latencyMs = 25_000, heldPerSecond = 45, floodParallel = 8, sessions = 60, bodyKiB = 60 } = {},
) {
  const keyed = (key) => ({ ...json, 'x-api-key': key });
  const keys = [];
  for (let i = 0; i < children; i++) {
    const made = await send(baseUrl, {
      path: '/sandbox/v1/sandboxes/create',
      headers: keyed(parentKey),
      body: JSON.stringify({ name: `abuser-${i}`, balance: 100 }),
    });
    // The tenant's rate budget is shared: creating children may itself be refused for a moment.
    if (made.status === 200) keys.push(JSON.parse(made.text).apiKey);
    else {
      i--;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  for (const key of keys) {
    const rules = { rules: [{ path: '/v1/card/list', latencyMs, count: 100_000 }] };
    await send(baseUrl, { path: '/sandbox/v1/faults', headers: keyed(key), body: JSON.stringify(rules) });
  }
  const child = (i) => keys[i % keys.length];
  let n = 0;

  // Requests held by the latency fault, each on a connection of its own: what took every connection of the server.
  const held = { statuses: {}, stopped: false, inFlight: new Set() };
  const heldTimer = setInterval(() => {
    for (let i = 0; i < Math.max(1, Math.round(heldPerSecond / 10)); i++) {
      const p = send(baseUrl, { path: '/v1/card/list', headers: keyed(child(n++)), body: '{}' }).then(({ status }) => {
        held.statuses[status] = (held.statuses[status] ?? 0) + 1;
        held.inFlight.delete(p);
      });
      held.inFlight.add(p);
    }
  }, 100);

  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const flood = abuse(floodParallel * 2, () =>
    send(baseUrl, { path: '/v1/wallet/assetList', headers: keyed(child(n++)), body: '{}', agent }),
  );
  const pad = 'x'.repeat(bodyKiB * 1024);
  const bigBodies = abuse(2, () =>
    send(baseUrl, { path: '/sandbox/v1/events', headers: keyed(child(n++)), body: JSON.stringify({ limit: 1 }) }).then(
      () => send(baseUrl, { path: '/v1/card/list', headers: keyed(child(n++)), body: `{"pad":"${pad}"}`, agent }),
    ),
  );

  // Console sessions with a form of a million characters each (refused by the API, kept for the form shown again).
  const alias = 'a'.repeat(1_000_000);
  const consoleOutcomes = { signIns: {}, forms: {} };
  // Stopped with the rest: a signed-in page reads the child's card/list, which its latency fault holds, so 60 sessions
  // run to completion would take 60 times that latency.
  let consoleStopped = false;
  const consoleWork = (async () => {
    for (let i = 0; i < sessions && !consoleStopped; i++) {
      const s = await consoleSession(baseUrl, child(i));
      consoleOutcomes.signIns[s.status] = (consoleOutcomes.signIns[s.status] ?? 0) + 1;
      if (!s.csrf) continue;
      const form = `_csrf=${encodeURIComponent(s.csrf)}&amount=1&alias=${alias}`;
      const posted = await send(baseUrl, {
        path: '/console/cards',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: s.cookie },
        body: form,
      });
      consoleOutcomes.forms[posted.status] = (consoleOutcomes.forms[posted.status] ?? 0) + 1;
    }
  })();

  return {
    children: keys.length,
    async stop() {
      clearInterval(heldTimer);
      consoleStopped = true;
      await Promise.all([flood.stop(), bigBodies.stop(), consoleWork]);
      agent.destroy();
      // The held requests end when their latency has passed or the server refused them; not awaited whole.
      await Promise.race([Promise.all(held.inFlight), new Promise((r) => setTimeout(r, latencyMs + 5_000))]);
      return {
        heldByLatencyFault: held.statuses,
        childFlood: flood.statuses,
        largeBodies: bigBodies.statuses,
        consoleSignIns: consoleOutcomes.signIns,
        consoleOversizedForms: consoleOutcomes.forms,
      };
    },
  };
}
