import type { Check, CheckContext } from '../context.js';

interface CardListBody {
  cardList?: { cardId: string; cardStatus: string }[];
}

/** The first card of the account, when there is one: read checks then cover detail, asset and sensitiveInfo. */
async function someCard(ctx: CheckContext): Promise<string | undefined> {
  const ex = await ctx.post('/v1/card/list');
  return (ex.json as CardListBody | undefined)?.cardList?.find((c) => c.cardStatus !== 'CANCELLED')?.cardId;
}

const readOf = (name: string, path: string, body: unknown = {}): Check => ({
  name: `read: ${name} answers 200 within its contract`,
  kind: 'read',
  async run(ctx: CheckContext) {
    const ex = await ctx.post(path, body);
    if (ctx.expectStatus(ex, 200)) ctx.expectContract(ex);
  },
});

const cardReadOf = (endpoint: string): Check => ({
  name: `read: card/${endpoint} of an existing card answers 200 within its contract`,
  kind: 'read',
  async run(ctx: CheckContext) {
    const cardId = await someCard(ctx);
    if (!cardId) ctx.skip('the account has no card yet');
    const ex = await ctx.post(`/v1/card/${endpoint}`, { cardId });
    if (ctx.expectStatus(ex, 200)) ctx.expectContract(ex);
  },
});

export const readChecks: Check[] = [
  readOf('wallet/assetList', '/v1/wallet/assetList'),
  {
    name: 'read: wallet/getAddress answers the address or code 2000',
    kind: 'read',
    async run(ctx: CheckContext) {
      const ex = await ctx.post('/v1/wallet/getAddress', { currency: 'USDT', network: 'TRX' });
      if (ex.status === 200) ctx.expectContract(ex);
      else ctx.expectError(ex, 400, 2000);
    },
  },
  readOf('card/binList', '/v1/card/binList'),
  readOf('card/list', '/v1/card/list'),
  readOf('card/list with status ACTIVE', '/v1/card/list', { status: 'ACTIVE' }),
  cardReadOf('detail'),
  cardReadOf('asset'),
  cardReadOf('sensitiveInfo'),
  readOf('bill/list', '/v1/bill/list'),
  {
    name: 'read: GET /v1/webhook answers the configuration without the secret',
    kind: 'read',
    async run(ctx: CheckContext) {
      const ex = await ctx.call('GET', '/v1/webhook');
      if (!ctx.expectStatus(ex, 200)) return;
      ctx.expectContract(ex);
      if (ex.json && typeof ex.json === 'object' && 'secret' in ex.json)
        ctx.fail('a read returned the full secret', ex);
    },
  },
];

export const UNKNOWN_CARD_ID = '2000010100000000000000';

/** Lookups of a card the account does not own are 4001 (the spec's CARD_NOT_FOUND). */
export const lookupChecks: Check[] = ['detail', 'asset', 'sensitiveInfo'].map((endpoint) => ({
  name: `lookup: card/${endpoint} of an unknown cardId is 4001`,
  kind: 'read',
  async run(ctx: CheckContext) {
    ctx.expectError(await ctx.post(`/v1/card/${endpoint}`, { cardId: UNKNOWN_CARD_ID }), 400, 4001);
  },
}));
