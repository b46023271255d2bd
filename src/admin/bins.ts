import { DEFAULT_BIN, findBin, type Bin } from '../domain/cards/bins.js';
import type { ServerDeps } from '../http/server-deps.js';
import { formatMicros, formatPpm } from '../domain/kernel/money.js';
import { binHasCards, putBin } from '../domain/cards/bins.js';

import type { Handlers } from '../http/router.js';
import { ppmOf, microsOfDecimal } from '../http/amounts.js';
import { DomainError, invalidField } from '../domain/kernel/errors.js';

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
      const fee = body.fee ?? {};
      const limit = body.limit ?? {};
      const base = findBin(deps, id) ?? { ...DEFAULT_BIN, id, title: id };
      const digits = body.bin;
      // Card numbers are derived from the BIN digits: changing them would change every issued card's number.
      if (digits !== undefined && digits !== base.bin && binHasCards(deps.db, id)) {
        throw new DomainError('BIN_DIGITS_FIXED');
      }
      const next: Bin = {
        ...base,
        title: body.title ?? base.title,
        bin: digits ?? base.bin,
        cardNetwork: body.cardNetwork ?? base.cardNetwork,
        fxRatePpm: (fee.fx === undefined ? undefined : ppmOf(fee.fx)) ?? base.fxRatePpm,
        openFeeMicros: (fee.card === undefined ? undefined : microsOfDecimal(fee.card)) ?? base.openFeeMicros,
        atmRatePpm: (fee.atm === undefined ? undefined : ppmOf(fee.atm)) ?? base.atmRatePpm,
        spendDailyMicros:
          (limit.spendDaily === undefined ? undefined : microsOfDecimal(limit.spendDaily)) ?? base.spendDailyMicros,
        minimalDepositMicros:
          (limit.minimalDeposit === undefined ? undefined : microsOfDecimal(limit.minimalDeposit)) ??
          base.minimalDepositMicros,
        enabled: body.enabled ?? base.enabled,
        inventory: body.inventory ?? base.inventory,
        provisioning: body.provisioning ?? base.provisioning,
      };
      deps.transactions.run(() => putBin(deps, next));
      return c.json(binAdminView(next));
    },
  };
}
