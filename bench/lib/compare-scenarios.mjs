// The scenarios of bench/compare.mjs, set up on one server: four reads and two keyed writes, each an autocannon
// option set made fresh for every measurement (a keyed write needs Idempotency-Keys no earlier run used).
import autocannon from 'autocannon';
import { benchAccount, client } from './client.mjs';
import { seedTransactions } from './seed-bills.mjs';
import { keyed } from './keyed.mjs';

const post = (url, apiKey, body) => ({
  url,
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
  body: JSON.stringify(body),
});

/** Keyed card creations, `amount` of them at 20 connections, each new card id handed to `onCard` (setup, not measured). */
function createCards(url, apiKey, prefix, amount, onCard) {
  return new Promise((resolve, reject) =>
    autocannon(
      {
        ...keyed(
          `${url}/v1/card/create`,
          apiKey,
          prefix,
          () => ({ amount: 5, currency: 'USDT' }),
          (status, body) => status === 200 && onCard(JSON.parse(body).cardId),
        ),
        connections: 20,
        amount,
      },
      (err) => (err ? reject(err) : resolve()),
    ),
  );
}

/**
 * The scenario names in the order they run, with their connections; `bare` marks the reference routes (the bare
 * route, and `floor` the floor routes of a read and a keyed write: bench/lib/floor-server.mjs), run once whatever
 * the builds. A read runs at
 * `readConnections`, each keyed write at every count of `writeConnections`.
 */
export function scenarioList({ readConnections, writeConnections }) {
  const reads = ['wallet/assetList', 'card/asset', 'card/list (20 cards)', 'bill/list (first page)'];
  const all = [...new Set([readConnections, ...writeConnections])];
  return [
    ...all.map((connections) => ({ name: 'bare Hono route', connections, bare: true })),
    { name: 'floor route', connections: readConnections, bare: true, floor: 'read' },
    ...writeConnections.map((connections) => ({
      name: 'floor route, keyed deposit',
      connections,
      bare: true,
      floor: 'write',
    })),
    ...reads.map((name) => ({ name, connections: readConnections })),
    ...writeConnections.map((connections) => ({ name: 'card/create, keyed', connections })),
    ...writeConnections.map((connections) => ({ name: 'card/deposit, keyed', connections })),
  ];
}

/**
 * Sets the scenarios up on the server at `url` (database file `dbPath`): a reading account with 20 cards and
 * `transactions` seeded card transactions, and a writing account with `depositCards` cards that deposits go round
 * over (a card refuses a deposit with 4007 while the previous one settles, 3 s later; every card the create scenario
 * makes joins the round too). Returns `optionsFor(name)`: fresh autocannon options for one measurement.
 */
export async function setUpScenarios(url, dbPath, { transactions, depositCards, tag }) {
  const api = client(url);
  const reader = await benchAccount(api);
  const cards = [];
  for (let i = 0; i < 20; i++)
    cards.push((await api.post(reader.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' })).cardId);
  if (transactions > 0)
    seedTransactions(dbPath, { accountId: reader.accountId, cardId: cards[0], count: transactions });
  const writer = await benchAccount(api);
  const pool = [];
  await createCards(url, writer.apiKey, `${tag}-setup`, depositCards, (id) => pool.push(id));
  let runs = 0;
  let next = 0;
  const reads = {
    'wallet/assetList': ['/v1/wallet/assetList', {}],
    'card/asset': ['/v1/card/asset', { cardId: cards[1] }],
    'card/list (20 cards)': ['/v1/card/list', {}],
    'bill/list (first page)': ['/v1/bill/list', {}],
  };
  return {
    cards: pool.length,
    optionsFor(name) {
      const prefix = `${tag}-${++runs}`;
      if (reads[name]) return post(url + reads[name][0], reader.apiKey, reads[name][1]);
      if (name === 'card/create, keyed')
        return keyed(
          `${url}/v1/card/create`,
          writer.apiKey,
          prefix,
          () => ({ amount: 5, currency: 'USDT' }),
          (status, body) => status === 200 && pool.push(JSON.parse(body).cardId),
        );
      if (name === 'card/deposit, keyed')
        return keyed(`${url}/v1/card/deposit`, writer.apiKey, prefix, () => ({
          cardId: pool[next++ % pool.length],
          amount: 1,
          currency: 'USDT',
        }));
      throw new Error(`unknown scenario ${name}`);
    },
  };
}
