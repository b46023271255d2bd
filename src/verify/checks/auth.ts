import type { Check, CheckContext } from '../context.js';

/** Authentication rules of the spec: a missing key is 401 {11002} or a bare 403; a wrong key is 401 {11002}. */
export const authChecks: Check[] = [
  {
    name: 'auth: missing X-API-KEY is 401 code 11002 or 403',
    kind: 'read',
    async run(ctx: CheckContext) {
      const ex = await ctx.post('/v1/wallet/assetList', {}, { apiKey: null });
      if (ex.status === 403) return;
      ctx.expectError(ex, 401, 11002);
    },
  },
  {
    name: 'auth: unknown X-API-KEY is 401 code 11002',
    kind: 'read',
    async run(ctx: CheckContext) {
      const ex = await ctx.post('/v1/wallet/assetList', {}, { apiKey: 'verify-not-a-key-0000000000000000000000' });
      ctx.expectError(ex, 401, 11002);
    },
  },
  {
    name: 'auth: the given key is accepted',
    kind: 'read',
    async run(ctx: CheckContext) {
      const ex = await ctx.post('/v1/wallet/assetList');
      ctx.require(ctx.expectStatus(ex, 200), 'every later check needs a working key');
    },
  },
];
