// npm run bench: the sandbox against a bare Hono route on the same stack, on loopback. Prints and writes
// bench/results.md. BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_TRANSACTIONS, BENCH_DEPOSIT_CARDS and BENCH_PROFILE=1 (--cpu-prof of the
// server into bench/tmp/prof) tune it.
import autocannon from 'autocannon';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { benchAccount, client, ADMIN_TOKEN } from './lib/client.mjs';
import { coldStart } from './lib/cold-start.mjs';
import { sequentialLatency } from './lib/latency.mjs';
import { CONNECTIONS, SECONDS, measure } from './lib/load.mjs';
import { freePort, startNode } from './lib/procs.mjs';
import { machine, render } from './lib/report.mjs';
import { scenarioLibrary } from './lib/scenario-library.mjs';
import { seedTransactions } from './lib/seed-bills.mjs';
import { webhookSchedule } from './lib/webhook-schedule.mjs';
import { keyed } from './lib/keyed.mjs';

const TXN_COUNT = Number(process.env.BENCH_TRANSACTIONS ?? 1_000_000);
const TMP = 'bench/tmp';
const log = (...a) => console.error('[bench]', ...a);

async function bare() {
  const port = await freePort();
  const s = await startNode(['bench/lib/bare-server.mjs'], {
    env: { PORT: String(port) },
    healthUrl: `http://127.0.0.1:${port}/healthz`,
  });
  try {
    return await measure(
      {
        url: `http://127.0.0.1:${port}/bare`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      },
      s.child.pid,
    );
  } finally {
    await s.stop();
  }
}

async function startSandbox(dbPath) {
  const port = await freePort();
  const prof = process.env.BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${TMP}/prof`] : [];
  const s = await startNode(
    [
      ...prof,
      'dist/src/cli/main.js',
      'serve',
      '--db',
      dbPath,
      '--port',
      String(port),
      '--admin-token',
      ADMIN_TOKEN,
      '--log-level',
      'warn',
    ],
    {
      env: { SANDBOX_BOOTSTRAP: 'false' },
      healthUrl: `http://127.0.0.1:${port}/healthz`,
    },
  );
  return { ...s, url: `http://127.0.0.1:${port}` };
}

function post(url, apiKey, body) {
  return {
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify(body),
  };
}

/** Exactly `amount` more keyed card creations at full speed (setup, not measured). */
function measureAmount(url, apiKey, amount, onCard) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        ...keyed(
          url + '/v1/card/create',
          apiKey,
          `setup-${process.pid}`,
          () => ({ amount: 5, currency: 'USDT' }),
          (status, body) => status === 200 && onCard(JSON.parse(body).cardId),
        ),
        connections: 20,
        amount,
      },
      (err) => (err ? reject(err) : resolve()),
    );
  });
}

async function main() {
  const when = new Date().toISOString();
  const m = machine();
  rmSync(TMP, { recursive: true, force: true });
  mkdirSync(TMP, { recursive: true });
  log(`machine ${m.cpu}, load ${m.loadavg}`);

  log('bare Hono route');
  const bareResult = await bare();
  const throughput = [{ name: 'bare Hono route (ceiling)', ...bareResult, ratio: 1 }];

  const dbPath = join(TMP, 'bench.db');
  const server = await startSandbox(dbPath);
  const api = client(server.url);
  let pages;
  let seedInfo;
  let webhook;
  try {
    const reader = await benchAccount(api);
    const cards = [];
    for (let i = 0; i < 20; i++)
      cards.push((await api.post(reader.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' })).cardId);
    log(`seeding ${TXN_COUNT} transactions`);
    seedInfo = {
      count: TXN_COUNT,
      ...seedTransactions(dbPath, { accountId: reader.accountId, cardId: cards[0], count: TXN_COUNT }),
    };
    const totalPages = Math.ceil(TXN_COUNT / 20);
    pages = [];
    for (const [name, pageNumber] of [
      ['first', 1],
      ['middle', Math.ceil(totalPages / 2)],
      ['last', totalPages],
    ]) {
      const r = await sequentialLatency(`${server.url}/v1/bill/list`, { pageNumber }, { 'x-api-key': reader.apiKey });
      if (r.body.totalElements !== TXN_COUNT) throw new Error(`bill/list saw ${r.body.totalElements} transactions`);
      pages.push({ name, pageNumber, ...r });
    }

    const reads = [
      ['wallet/assetList', '/v1/wallet/assetList', {}],
      ['card/asset', '/v1/card/asset', { cardId: cards[1] }],
      ['card/list (20 cards)', '/v1/card/list', {}],
      [`bill/list (first page of ${TXN_COUNT.toLocaleString('en-US')})`, '/v1/bill/list', {}],
    ];
    for (const [name, path, body] of reads) {
      log(name);
      const r = await measure(post(server.url + path, reader.apiKey, body), server.child.pid);
      throughput.push({
        name,
        ...r,
        ratio: r.rps / bareResult.rps,
        target: '>= 60 %',
        met: r.rps / bareResult.rps >= 0.6,
      });
    }

    const writer = await benchAccount(api);
    const created = [];
    log('card/create (keyed)');
    const create = await measure(
      keyed(
        server.url + '/v1/card/create',
        writer.apiKey,
        `create-${process.pid}`,
        () => ({ amount: 5, currency: 'USDT' }),
        (status, body) => {
          if (status === 200) created.push(JSON.parse(body).cardId);
        },
      ),
      server.child.pid,
    );
    throughput.push({ name: 'card/create (keyed)', ...create, ratio: create.rps / bareResult.rps });

    // A top-up settles 3 s later and the card refuses another deposit until then (4007): round-robin over enough
    // cards that each is visited less often than every 4 s even at 6,000 deposits/s.
    const wanted = Number(process.env.BENCH_DEPOSIT_CARDS ?? 24_000) - created.length;
    if (wanted > 0) {
      log(`creating ${wanted} more cards for the deposit run`);
      await measureAmount(server.url, writer.apiKey, wanted, (cardId) => created.push(cardId));
    }
    log(`card/deposit (keyed) over ${created.length} cards`);
    let i = 0;
    const deposit = await measure(
      keyed(server.url + '/v1/card/deposit', writer.apiKey, `deposit-${process.pid}`, () => ({
        cardId: created[i++ % created.length],
        amount: 1,
        currency: 'USDT',
      })),
      server.child.pid,
    );
    const depRatio = deposit.rps / bareResult.rps;
    throughput.push({
      name: `card/deposit (keyed, ${created.length.toLocaleString('en-US')} cards)`,
      ...deposit,
      ratio: depRatio,
      target: '>= 25 %, p99 < 20 ms',
      met: depRatio >= 0.25 && deposit.p99 < 20,
    });

    log('webhook retry schedule');
    webhook = await webhookSchedule(api, await benchAccount(api));
  } catch (err) {
    if (server.child.exitCode !== null) log(`the server exited (${server.child.exitCode}):\n${server.stderr()}`);
    throw err;
  } finally {
    await server.stop();
  }

  log('cold start');
  const cold = await coldStart();
  log('scenario library');
  const library = await scenarioLibrary();
  const md = render({
    when,
    m,
    loadEnd: os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' '),
    connections: CONNECTIONS,
    seconds: SECONDS,
    throughput,
    pages,
    seedInfo,
    cold,
    webhook,
    library,
  });
  writeFileSync('bench/results.md', md);
  process.stdout.write(md + '\n');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
