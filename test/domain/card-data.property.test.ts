import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveCardData, derivePan } from '../../src/domain/cards/card-data.js';
import { ServerSecret } from '../../src/domain/kernel/secrets.js';
import { luhnValid } from '../helpers/luhn.js';
import { propertyRuns } from '../helpers/property-runs.js';

// A card loaded from a snapshot made under another server secret keeps the last four digits it has always shown:
// its PAN is then the BIN, digits derived from this server's secret, the one digit that balances the Luhn sum, and
// those four digits (docs/decisions.md). Judged with the test's own Luhn check.

describe('card data of a card whose last four digits this secret would not derive', () => {
  it('is a 16-digit, Luhn-valid PAN on its BIN ending in its last four digits, the same on every read', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.stringMatching(/^\d{22}$/),
        fc.stringMatching(/^\d{6,8}$/),
        fc.stringMatching(/^\d{4}$/),
        (bytes, id, bin, last4) => {
          const secret = new ServerSecret(Buffer.from(bytes));
          const card = { id, last4, createdAtMs: Date.UTC(2026, 0, 15) };
          const { cardNo, expiryDate } = deriveCardData(secret, card, bin);
          expect(cardNo).toHaveLength(16);
          expect(cardNo.startsWith(bin)).toBe(true);
          expect(cardNo.endsWith(last4)).toBe(true);
          expect(luhnValid(cardNo)).toBe(true);
          expect(expiryDate).toBe('01/29');
          expect(deriveCardData(secret, card, bin).cardNo).toBe(cardNo);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });

  it('is the PAN this secret derives for every card this server made (whose last four digits it derived)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{22}$/), fc.stringMatching(/^\d{6,8}$/), (id, bin) => {
        const secret = new ServerSecret(Buffer.alloc(32, 7));
        const pan = derivePan(secret, id, bin);
        expect(deriveCardData(secret, { id, last4: pan.slice(-4), createdAtMs: 0 }, bin).cardNo).toBe(pan);
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});
