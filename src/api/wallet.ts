import { ensureDepositAddress } from '../domain/accounts/accounts.js';
import type { ServerDeps } from '../http/server-deps.js';
import { walletAsset } from '../domain/chain/chain.js';
import { formatMicros } from '../domain/kernel/money.js';
import { caughtUpNow } from '../http/account-clock.js';
import type { Handlers } from '../http/router.js';

import { OK } from '../http/envelope.js';
import { DomainError } from '../domain/kernel/errors.js';

export const walletHandlers = (deps: ServerDeps): Handlers => ({
  'POST /v1/wallet/assetList': async (c) => {
    const accountId = c.get('account').id;
    await caughtUpNow(c, deps);
    const usdt = await walletAsset(deps, accountId);
    return c.json({
      ...OK,
      assetList: [
        {
          currency: 'USDT',
          availableAmount: formatMicros(usdt.available),
          frozenAmount: formatMicros(usdt.pending),
          assetType: 'CRYPTO',
          status: 'ACTIVE',
        },
        {
          currency: 'USDC',
          availableAmount: '0',
          frozenAmount: null,
          assetType: 'CRYPTO',
          status: null,
          active: false,
        },
      ],
    });
  },
  'POST /v1/wallet/getAddress': async (c, body) => {
    const network = body.network;
    const address = await ensureDepositAddress(deps, c.get('account').id);
    if (!address) throw new DomainError('ADDRESS_ERROR');
    return c.json({ ...OK, address, network });
  },
});
