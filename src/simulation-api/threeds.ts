import type { ServerDeps } from '../http/server-deps.js';
import { FX_CURRENCIES } from '../domain/network/fx.js';
import { CHALLENGE_TYPES, challengeCard, verifyChallenge } from '../domain/network/threeds.js';
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

/** card/3ds raises a challenge (answering its OTP to the caller only); 3ds/verify checks a code. */
export function threeDsHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/card/3ds': async (c, body) => {
      const cardId = requiredString(body, 'cardId');
      const type = requiredEnum(body, 'type', CHALLENGE_TYPES);
      const merchant = optionalString(body, 'merchant');
      const amountMicros = optionalAmount(body, 'amount', 2);
      const currency = optionalEnum(body, 'currency', FX_CURRENCIES);
      const dedicatedInbox = optionalBoolean(body, 'dedicatedInbox') ?? true;
      const given = { cardId, type, merchant, amountMicros, currency, dedicatedInbox };
      const challenge = await challengeCard(deps, c.get('account').id, given);
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
