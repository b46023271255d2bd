import { createHash } from 'node:crypto';
import type { ServerDeps } from '../server-deps.js';
import { FX_CURRENCIES } from '../domain/fx.js';
import { merchantFor } from '../domain/merchants.js';
import { CHALLENGE_TYPES, raiseChallenge, verifyChallenge } from '../domain/threeds.js';
import { OK } from '../http/envelope.js';
import { runCommand } from '../http/command.js';
import type { Handlers } from '../http/router.js';
import {
  optionalAmount,
  optionalBoolean,
  optionalEnum,
  optionalString,
  requiredEnum,
  requiredString,
} from '../http/validate.js';

/** A plausible payment amount (1.00 to 500.00) for a payment challenge raised without one, fixed by its id. */
function defaultPaymentMicros(challengeId: string): number {
  const cents = 100 + (createHash('sha256').update(challengeId).digest().readUInt32BE(0) % 49_901);
  return cents * 10_000;
}

/** card/3ds raises a challenge (answering its OTP to the caller only); 3ds/verify checks a code. */
export function threeDsHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/card/3ds': async (c, body) => {
      const cardId = requiredString(body, 'cardId');
      const type = requiredEnum(body, 'type', CHALLENGE_TYPES);
      const merchantGiven = optionalString(body, 'merchant');
      let amountMicros = optionalAmount(body, 'amount', 2);
      let currency = optionalEnum(body, 'currency', FX_CURRENCIES);
      const dedicatedInbox = optionalBoolean(body, 'dedicatedInbox') ?? true;
      const challengeId = 'tds_' + deps.ids.base62(24);
      const merchant = merchantGiven ?? (await merchantFor(challengeId, {})).merchantName;
      // A payment always has an amount; a binding shows one only when the caller gave it.
      if (type === 'payment') {
        amountMicros ??= defaultPaymentMicros(challengeId);
        currency ??= 'USD';
      } else if (amountMicros !== undefined) {
        currency ??= 'USD';
      }
      const input = { challengeId, cardId, type, merchant, amountMicros, currency, dedicatedInbox };
      const challenge = runCommand(c, deps, (now) => raiseChallenge(deps, c.get('account').id, input, now));
      return c.json({ ...OK, ...challenge });
    },
    'POST /sandbox/v1/3ds/verify': async (c, body) => {
      const challengeId = requiredString(body, 'challengeId');
      const otp = requiredString(body, 'otp');
      const result = runCommand(c, deps, (now) => verifyChallenge(deps, c.get('account').id, challengeId, otp, now));
      return c.json({ ...OK, result });
    },
  };
}
