import fc from 'fast-check';
import type { Check, CheckContext } from '../context.js';
import { micros } from '../money.js';
import { firstEnabledBin } from '../state.js';
import { assertBalances, commandArbitraries } from './commands.js';
import type { Model, Real } from './model.js';

const START_BALANCE = 200;

/** Every command is followed by a read of every balance, which must be the model's. */
class Checked implements fc.AsyncCommand<Model, Real> {
  constructor(readonly inner: fc.AsyncCommand<Model, Real>) {}
  check(m: Readonly<Model>) {
    return this.inner.check(m);
  }
  async run(m: Model, real: Real) {
    await this.inner.run(m, real);
    await assertBalances(m, real);
  }
  toString() {
    return this.inner.toString();
  }
}

export interface PropertyOptions {
  numRuns: number;
  seed?: number;
}

/** Random command sequences of at most `maxCommands`, each command followed by a read of every balance. */
export function checkedCommands(maxCommands: number) {
  return fc.commands(
    commandArbitraries.map((a) => a.map((c) => new Checked(c))),
    { maxCommands },
  );
}

/**
 * The setup of one sequence on the context's account: reset to the opening balance, clock frozen, a fresh model
 * with the fees of the first enabled BIN.
 */
export async function modelSetup(ctx: CheckContext): Promise<() => Promise<{ model: Model; real: Real }>> {
  const bin = await firstEnabledBin(ctx);
  const fees = {
    binId: bin.id,
    ratePpm: micros(bin.fee.deposit),
    openFeeMicros: micros(bin.fee.card),
    minimalMicros: micros(bin.limit.minimalDeposit),
  };
  return async () => {
    ctx.require(ctx.expectStatus(await ctx.post('/sandbox/v1/reset', { balance: START_BALANCE }), 200));
    ctx.require(ctx.expectStatus(await ctx.post('/sandbox/v1/clock', { mode: 'frozen' }), 200));
    const model: Model = {
      walletMicros: START_BALANCE * 1_000_000,
      cards: [],
      keyed: [],
      fees,
      nextKey: 0,
      nowS: 0,
    };
    return { model, real: { ctx } };
  };
}

/**
 * The model-based run: random sequences of card creation, top-ups, freezes, keyed retries and clock steps on a
 * sandbox account (reset before each sequence, clock frozen), every answer checked against its contract and the
 * model's prediction. A failure prints the seed and the shrunk command list.
 */
export function propertyCheck(opts: PropertyOptions): Check {
  return {
    name: `properties: ${opts.numRuns} random sequences of create/deposit/freeze/retry/clock match the model`,
    kind: 'sandbox',
    async run(ctx: CheckContext) {
      const setup = await modelSetup(ctx);
      const result = await fc.check(
        fc.asyncProperty(checkedCommands(25), (cmds) => fc.asyncModelRun(setup, cmds)),
        { numRuns: opts.numRuns, seed: opts.seed },
      );
      await ctx.post('/sandbox/v1/clock', { mode: 'running' });
      if (result.failed) {
        const why = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
        ctx.fail(`${fc.defaultReportMessage(result) ?? `property failed (seed ${result.seed})`}\nCause: ${why}`);
      }
    },
  };
}
