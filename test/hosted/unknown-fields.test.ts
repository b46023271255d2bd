import { describe, expect } from 'vitest';
import { readIndex } from '../../src/contracts/files.js';
import { expectRefusedUnchanged, newCard, sim } from '../helpers/core.js';
import { fundedTest as it } from '../helpers/fixtures.js';

// docs/design.md section 12: an unknown field in a /sandbox/v1 or /admin/v1 body is a 400 that
// names it, and the request changes nothing. A misspelt simulation parameter must never be silently ignored.

const operations = Object.entries(readIndex().operations)
  .filter(([key, op]) => op.request !== null && / \/(sandbox|admin)\/v1\//.test(key))
  .map(([key]) => key.split(' ') as [string, string]);

describe('unknown fields in simulation and operator bodies are refused', () => {
  it('clock {"advanceSecond": 3600} is a 400 suggesting advanceSeconds, and the clock does not move', async ({
    sb,
    acct,
  }) => {
    // Frozen, so that only an advance could move it.
    const before = (await sim(sb, acct.apiKey, 'clock', { mode: 'frozen' })).body.now;
    expect(before).toEqual(expect.any(String));
    const res = await expectRefusedUnchanged(sb, 400, () => sim(sb, acct.apiKey, 'clock', { advanceSecond: 3600 }));
    expect(res.body).toEqual({ code: 400, message: 'advanceSecond: unknown field (did you mean advanceSeconds?)' });
    expect((await sim(sb, acct.apiKey, 'clock', {})).body.now).toBe(before);
  });

  it('card/authorize with "merchant" is a 400 naming it, and no transaction is made', async ({ sb, acct }) => {
    const cardId = await newCard(sb, acct.apiKey, 50);
    const res = await expectRefusedUnchanged(sb, 400, () =>
      sim(sb, acct.apiKey, 'card/authorize', { cardId, amount: 5, merchant: 'COFFEE' }),
    );
    expect(res.body.message).toMatch(/^merchant: unknown field \(/);
  });

  it.for(operations)(
    '%s %s: an unknown field is a 400 naming it, before any other check, and changes nothing',
    async ([method, template], { sb, acct }) => {
      const path = template.replace('{id}', acct.accountId).replace('{binId}', 'VISA-EFI-454924');
      const body = { notAField: 1 };
      const res = await expectRefusedUnchanged(sb, 400, () =>
        path.startsWith('/admin/')
          ? sb.admin(method.toLowerCase() as 'post', path, body)
          : sb.post(acct.apiKey, path, body),
      );
      expect(res.body.code).toBe(400);
      expect(res.body.message).toMatch(/^notAField: unknown field \(it takes /);
    },
  );
});
