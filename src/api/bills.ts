import { getBin } from '../domain/cards/bins.js';
import { getOwnedCard } from '../domain/cards/cards.js';
import type { ServerDeps } from '../http/server-deps.js';
import { listBills, type BillScope } from '../domain/network/transactions.js';
import { caughtUpNow } from '../http/account-clock.js';
import type { Handlers } from '../http/router.js';

import { OK } from '../http/envelope.js';
import { billView } from './views.js';

const DEFAULT_PAGE_SIZE = 20;

export const billHandlers = (deps: ServerDeps): Handlers => ({
  'POST /v1/bill/list': (c, body) => {
    const cardId = body.cardId;
    const binId = body.binId;
    const pageNumber = body.pageNumber ?? 1;
    const pageSize = body.pageSize ?? DEFAULT_PAGE_SIZE;
    const accountId = c.get('account').id;
    caughtUpNow(c, deps);
    let scope: BillScope = { accountId };
    if (cardId !== undefined) scope = { cardId: getOwnedCard(deps, accountId, cardId).id };
    // An unknown BIN is 4004 (spec error catalogue), as strict as an unknown cardId; a disabled one can be read.
    else if (binId !== undefined) scope = { accountId, binId: getBin(deps, binId).id };
    const page = listBills(deps, scope, pageNumber, pageSize);
    return c.json({
      ...OK,
      transactions: page.rows.map(billView),
      last: page.last,
      totalPages: page.totalPages,
      totalElements: page.totalElements,
    });
  },
});
