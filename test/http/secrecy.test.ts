import { describe, expect, it } from 'vitest';
import { captureLogger, failInserts, newCard } from '../helpers/core.js';
import { createTestSandbox } from '../helpers/sandbox.js';

describe('Cardholder data and API keys never reach the logs or error messages', () => {
  it('through issue, reveal, errors and an unexpected 500', async () => {
    const lines: string[] = [];
    const sb = createTestSandbox({ logger: captureLogger(lines) });
    try {
      const acct = await sb.account({ balance: 100 });
      const cardId = await newCard(sb, acct.apiKey, 10);
      const info = (await sb.post(acct.apiKey, '/v1/card/sensitiveInfo', { cardId })).body as {
        cardNo: string;
        cvv: string;
      };
      // A request that carries the card number in its body, answered with errors.
      const bodies = [
        await sb.post(acct.apiKey, '/v1/card/detail', { cardId: info.cardNo }),
        await sb.post(acct.apiKey, '/v1/card/create', { amount: info.cardNo, currency: 'USDT' }),
        await sb.post(acct.apiKey, '/v1/card/create', `{"alias":"${info.cardNo}",`),
        await sb.post(`${acct.apiKey}x`, '/v1/card/list', {}),
      ];
      // An unexpected error on a request carrying the PAN.
      await failInserts(sb.deps.store, 'cards', 'boom');
      const crash = await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT', alias: info.cardNo });
      expect(crash.status).toBe(500);
      expect(crash.body).toEqual({ code: 9999, message: 'Unexpected server error, retry later' });
      expect(lines.length).toBeGreaterThan(0);
      const everything = lines.join('\n') + bodies.map((b) => JSON.stringify(b.body)).join('\n');
      expect(everything).not.toContain(info.cardNo);
      expect(everything).not.toContain(acct.apiKey);
    } finally {
      await sb.close();
    }
  });
});
