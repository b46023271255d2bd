import { DEFAULT_BIN, findBin, type Bin } from '../domain/cards/bins.js';
import type { ServerDeps } from '../http/server-deps.js';
import { formatMicros, formatPpm } from '../domain/kernel/money.js';
import { binHasCards, putBin } from '../domain/cards/bins.js';

import type { Handlers } from '../http/router.js';
import {
  optionalBoolean,
  optionalDecimal,
  optionalInteger,
  optionalRatePpm,
  optionalString,
  type Body,
} from '../http/validate.js';
import { DomainError, invalidField } from '../domain/kernel/errors.js';

/** `fee` or `limit`: an object when present (the schema says so), its fields optional. */
const section = (body: Body, field: string): Body => (body[field] as Body | undefined) ?? {};

function binAdminView(bin: Bin) {
  return {
    id: bin.id,
    title: bin.title,
    bin: bin.bin,
    cardNetwork: bin.cardNetwork,
    fee: { fx: formatPpm(bin.fxRatePpm), card: formatMicros(bin.openFeeMicros), atm: formatPpm(bin.atmRatePpm) },
    limit: { spendDaily: formatMicros(bin.spendDailyMicros), minimalDeposit: formatMicros(bin.minimalDepositMicros) },
    enabled: bin.enabled,
    inventory: bin.inventory,
    provisioning: bin.provisioning,
  };
}

/** PUT /bins/:binId creates or updates a BIN; fields left out keep their value (or the default BIN's). */
export function binHandlers(deps: ServerDeps): Handlers {
  return {
    'PUT /admin/v1/bins/{binId}': async (c, body) => {
      const id = c.req.param('binId')!;
      if (!/^[A-Za-z0-9._-]{1,64}$/.test(id))
        throw invalidField('binId must be 1-64 letters, digits, dots, dashes or underscores');
      const fee = section(body, 'fee');
      const limit = section(body, 'limit');
      const base = findBin(deps, id) ?? { ...DEFAULT_BIN, id, title: id };
      const digits = optionalString(body, 'bin');
      // Card numbers are derived from the BIN digits: changing them would change every issued card's number.
      if (digits !== undefined && digits !== base.bin && binHasCards(deps.db, id)) {
        throw new DomainError('BIN_DIGITS_FIXED');
      }
      const next: Bin = {
        ...base,
        title: optionalString(body, 'title') ?? base.title,
        bin: digits ?? base.bin,
        cardNetwork: optionalString(body, 'cardNetwork') ?? base.cardNetwork,
        fxRatePpm: optionalRatePpm(fee, 'fx') ?? base.fxRatePpm,
        openFeeMicros: optionalDecimal(fee, 'card') ?? base.openFeeMicros,
        atmRatePpm: optionalRatePpm(fee, 'atm') ?? base.atmRatePpm,
        spendDailyMicros: optionalDecimal(limit, 'spendDaily') ?? base.spendDailyMicros,
        minimalDepositMicros: optionalDecimal(limit, 'minimalDeposit') ?? base.minimalDepositMicros,
        enabled: optionalBoolean(body, 'enabled') ?? base.enabled,
        inventory: optionalInteger(body, 'inventory') ?? base.inventory,
        provisioning: optionalBoolean(body, 'provisioning') ?? base.provisioning,
      };
      deps.transactions.run(() => putBin(deps, next));
      return c.json(binAdminView(next));
    },
  };
}
