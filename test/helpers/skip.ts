import type { TestContext } from 'vitest';

/**
 * Skips the test with its reason, shown after the run's summary; under CI=true nothing may skip, so the reason
 * fails the test instead.
 */
export function skipBecause(ctx: Pick<TestContext, 'skip'>, reason: string): never {
  if (process.env.CI === 'true') throw new Error(`cannot skip under CI=true: ${reason}`);
  return ctx.skip(reason);
}
