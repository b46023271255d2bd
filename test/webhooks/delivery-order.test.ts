import { createServer } from 'node:http';
import { describe, expect } from 'vitest';
import { newCard, outbox, putWebhookConfig } from '../helpers/core.js';
import { fundedTest as it } from '../helpers/fixtures.js';
import { waitFor } from '../helpers/wait.js';
import { closeServer, listen } from '../helpers/loopback.js';
import { authorize } from '../helpers/card-network.js';

// docs/design.md section 15: an account's events go out in the order they happened, so a receiver that answers 2xx
// sees them in that order and a ledger folded by arrival is right. Here the wall-clock timer delivers them (no clock
// advance awaits each attempt) to a receiver that takes its time to answer: the account never has two deliveries on
// the wire at once, and they arrive in the outbox's order.

describe('webhook deliveries sent by the timer', () => {
  it("go out one at a time per account, in the order the account's events happened", async ({ sb, acct }) => {
    const arrived: string[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const server = createServer((req, res) => {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        arrived.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id);
        // An answer that takes a while leaves room for a second delivery to start, were they sent side by side.
        setTimeout(() => {
          inFlight--;
          res.end('ok');
        }, 5);
      });
    });
    const url = `${await listen(server)}/hooks`;
    try {
      expect((await putWebhookConfig(sb, acct.apiKey, { url })).status).toBe(200);
      const cardId = await newCard(sb, acct.apiKey, 50);
      for (let i = 0; i < 6; i++) {
        await authorize(sb, acct.apiKey, cardId, { amount: 1 });
        await sb.post(acct.apiKey, `/v1/card/${i % 2 === 0 ? 'freeze' : 'unfreeze'}`, { cardId });
      }
      const sent = (await outbox(sb, acct.accountId)).map((e) => e.id);
      expect(sent.length).toBeGreaterThan(12);
      sb.deps.jobs.start(10);
      await waitFor('every event delivered', () => arrived.length >= sent.length);
      expect(arrived).toEqual(sent);
      expect(mostInFlight).toBe(1);
    } finally {
      await sb.deps.jobs.stop(0);
      await closeServer(server);
    }
  });
});

describe('webhook deliveries sent at once', () => {
  it('an event goes out as soon as the write that made it commits, not at the next look of the timer', async ({
    sb,
    acct,
  }) => {
    const arrived: string[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        arrived.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id);
        res.end('ok');
      });
    });
    const url = `${await listen(server)}/hooks`;
    try {
      expect((await putWebhookConfig(sb, acct.apiKey, { url })).status).toBe(200);
      const cardId = await newCard(sb, acct.apiKey, 50);
      // The timer's first look is an hour away: only the write itself can send its event.
      sb.deps.jobs.start(3_600_000);
      const before = new Set((await outbox(sb, acct.accountId)).map((e) => e.id));
      expect((await sb.post(acct.apiKey, '/v1/card/freeze', { cardId })).status).toBe(200);
      const frozen = (await outbox(sb, acct.accountId)).map((e) => e.id).filter((id) => !before.has(id));
      expect(frozen).toHaveLength(1);
      await waitFor('the freeze event delivered', () => arrived.includes(frozen[0]!));
    } finally {
      await sb.deps.jobs.stop(0);
      await closeServer(server);
    }
  });
});

describe('webhook deliveries while a clock advance runs', () => {
  it.override({ sandboxOptions: { config: { webhookTimeoutMs: 300 } } })(
    "an advance waits for the attempt the timer has on the wire: the account's attempts never overlap",
    async ({ sb, acct }) => {
      const arrived: string[] = [];
      let inFlight = 0;
      let mostInFlight = 0;
      // The first request hangs until its sender gives up (the attempt's timeout); the others are answered at once.
      const server = createServer((req, res) => {
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        const first = arrived.length === 0;
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          arrived.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id);
          if (!first) res.end('ok');
        });
        res.on('close', () => inFlight--);
      });
      const url = `${await listen(server)}/hooks`;
      try {
        expect((await putWebhookConfig(sb, acct.apiKey, { url })).status).toBe(200);
        const cardId = await newCard(sb, acct.apiKey, 50);
        for (let i = 0; i < 3; i++)
          await sb.post(acct.apiKey, `/v1/card/${i % 2 === 0 ? 'freeze' : 'unfreeze'}`, { cardId });
        const sent = (await outbox(sb, acct.accountId)).map((e) => e.id);
        sb.deps.jobs.start(10);
        await waitFor('the first attempt on the wire', () => arrived.length === 1);
        // The advance finds the next attempts due while the first hangs: it sends them only after the first is over.
        expect((await sb.post(acct.apiKey, '/sandbox/v1/clock', { advanceSeconds: 1 })).status).toBe(200);
        await waitFor('every event delivered', () => arrived.length >= sent.length);
        expect(arrived.slice(0, sent.length)).toEqual(sent);
        expect(mostInFlight).toBe(1);
      } finally {
        await sb.deps.jobs.stop(0);
        await closeServer(server);
      }
    },
  );
});
