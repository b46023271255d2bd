import type { ServerDeps } from '../http/server-deps.js';
import { challengeCard, verifyChallenge } from '../domain/network/threeds.js';
import { OK } from '../http/envelope.js';
import { runCommand } from '../http/run-command.js';
import type { Handlers } from '../http/router.js';
import { microsOf } from '../http/amounts.js';

/** card/3ds raises a challenge (answering its OTP to the caller only); 3ds/verify checks a code. */
export function threeDsHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/card/3ds': async (c, body) => {
      const cardId = body.cardId;
      const type = body.type;
      const merchant = body.merchant;
      const amountMicros = body.amount === undefined ? undefined : microsOf(body.amount, 2);
      const currency = body.currency;
      const dedicatedInbox = body.dedicatedInbox ?? true;
      const given = { cardId, type, merchant, amountMicros, currency, dedicatedInbox };
      const challenge = await challengeCard(deps, c.get('account').id, given);
      return c.json({ ...OK, ...challenge });
    },
    'POST /sandbox/v1/3ds/verify': async (c, body) => {
      const challengeId = body.challengeId;
      const otp = body.otp;
      const result = runCommand(c, deps, (now) => verifyChallenge(deps, c.get('account').id, challengeId, otp, now));
      return c.json({ ...OK, result });
    },
  };
}
