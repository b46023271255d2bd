import type { TestContext } from 'vitest';

/**
 * Skips the test with its reason, shown after the run's summary; under CI=true nothing may skip, so the reason
 * fails the test instead.
 */
export function skipBecause(ctx: Pick<TestContext, 'skip'>, reason: string): never {
  if (process.env.CI === 'true') throw new Error(`cannot skip under CI=true: ${reason}`);
  return ctx.skip(reason);
}

/**
 * Skips a test that needs a toolchain no npm package brings and the CI machine does not have (Go, a C# compiler),
 * with its reason, under CI=true too: the test then says visibly that it did not run, rather than pass. Toolchains the
 * CI machine has (python3, a JDK) use `skipBecause`, which fails under CI=true.
 */
export function skipWithoutToolchain(ctx: Pick<TestContext, 'skip'>, reason: string): never {
  return ctx.skip(reason);
}
