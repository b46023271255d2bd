import type { Check, CheckContext } from '../context.js';

interface Page {
  transactions: unknown[];
  last: boolean;
  totalPages: number;
  totalElements: number;
}

/** bill/list pagination rules: default size 20, past-the-last answers the last page, no match is an empty page. */
export const paginationChecks: Check[] = [
  {
    name: 'pagination: the default page holds at most 20 transactions',
    kind: 'read',
    async run(ctx: CheckContext) {
      const ex = await ctx.post('/v1/bill/list', {});
      ctx.require(ctx.expectStatus(ex, 200));
      const page = ex.json as Page;
      if (page.transactions.length > 20) ctx.fail(`default page has ${page.transactions.length} items`, ex);
      const expectedPages = Math.ceil(page.totalElements / 20);
      if (page.totalPages !== expectedPages) ctx.fail(`totalPages ${page.totalPages}, expected ${expectedPages}`, ex);
    },
  },
  {
    name: 'pagination: a pageNumber past the last returns the last page',
    kind: 'read',
    async run(ctx: CheckContext) {
      const first = await ctx.post('/v1/bill/list', { pageSize: 1 });
      ctx.require(ctx.expectStatus(first, 200));
      const { totalPages } = first.json as Page;
      if (totalPages === 0) ctx.skip('the account has no transactions');
      const last = await ctx.post('/v1/bill/list', { pageSize: 1, pageNumber: totalPages });
      const past = await ctx.post('/v1/bill/list', { pageSize: 1, pageNumber: totalPages + 7 });
      ctx.require(ctx.expectStatus(past, 200) && ctx.expectStatus(last, 200));
      ctx.expectContract(past);
      if (!(past.json as Page).last) ctx.fail('a page past the last must have last: true', past);
      if (JSON.stringify((past.json as Page).transactions) !== JSON.stringify((last.json as Page).transactions)) {
        ctx.fail('a page past the last must hold the last page', past);
      }
    },
  },
  {
    name: 'pagination: no match is an empty page with totalElements 0, totalPages 0, last true',
    kind: 'read',
    async run(ctx: CheckContext) {
      const cards = ((await ctx.post('/v1/card/list')).json as { cardList?: { cardId: string }[] } | undefined)
        ?.cardList;
      for (const { cardId } of (cards ?? []).slice(0, 10)) {
        const ex = await ctx.post('/v1/bill/list', { cardId });
        const page = ex.json as Page | undefined;
        if (ex.status !== 200 || !page || page.totalElements !== 0) continue;
        ctx.expectContract(ex);
        if (page.transactions.length !== 0 || page.totalPages !== 0 || page.last !== true) {
          ctx.fail('an empty result must be {transactions: [], totalElements: 0, totalPages: 0, last: true}', ex);
        }
        return;
      }
      ctx.skip('no card without transactions to query');
    },
  },
];
