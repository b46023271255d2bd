import type { Check, CheckContext } from '../context.js';

/** Every failure is a JSON `{code, message}` with a 4xx, never a stack trace or a 5xx. */
export const errorChecks: Check[] = [
  {
    name: 'errors: malformed JSON is 400 with an error body',
    kind: 'read',
    async run(ctx: CheckContext) {
      ctx.expectError(await ctx.call('POST', '/v1/card/list', { raw: '{"status":' }), 400, 400);
    },
  },
  {
    name: 'errors: a missing required field is 400 code 400',
    kind: 'read',
    async run(ctx: CheckContext) {
      ctx.expectError(await ctx.post('/v1/card/detail', {}), 400, 400);
    },
  },
  {
    name: 'errors: a mistyped field is 400 code 400',
    kind: 'read',
    async run(ctx: CheckContext) {
      ctx.expectError(await ctx.post('/v1/card/detail', { cardId: 12 }), 400, 400);
    },
  },
  {
    name: 'errors: getAddress with another currency is 400 code 400',
    kind: 'read',
    async run(ctx: CheckContext) {
      ctx.expectError(await ctx.post('/v1/wallet/getAddress', { currency: 'BTC', network: 'TRX' }), 400, 400);
    },
  },
  {
    name: 'errors: an unknown route is a 4xx with an error body',
    kind: 'read',
    async run(ctx: CheckContext) {
      const ex = await ctx.post('/v1/card/no-such-endpoint');
      if (ex.status < 400 || ex.status >= 500) ctx.fail('expected a 4xx', ex);
      const body = ex.json as { code?: unknown; message?: unknown } | undefined;
      if (typeof body?.code !== 'number' || typeof body.message !== 'string') ctx.fail('expected {code, message}', ex);
    },
  },
];
