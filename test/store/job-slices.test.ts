import { afterEach, describe, expect, it } from 'vitest';
import { createTestSandbox, START_MS, type TestSandbox } from '../helpers/sandbox.js';

// Timers on the account clock run in slices, one transaction each (domain/kernel/jobs.ts): a job's claim and its
// effects commit together, and a job that fails rolls back alone, those before it in its slice committed. The first
// job of a slice runs without a savepoint of its own (the transaction holds nothing else), so its failure must roll
// back the whole transaction: both places are proven here, on either store. The jobs' effects are rows of their own
// (a far-off marker job each writes), so what committed is read back from the database.

let sb: TestSandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

const FAR_MS = START_MS + 365 * 86_400_000;

async function setUp() {
  sb = createTestSandbox();
  await sb.deps.ready;
  const { accountId } = await sb.account();
  const { jobs } = sb.deps;
  jobs.register('test.marker', { run: () => {} });
  jobs.register('test.ok', {
    run: (deps, job) => deps.jobs.schedule(deps.db, accountId, 'test.marker', `${job.ref} ran`, FAR_MS),
  });
  jobs.register('test.fail', {
    run: async (deps, job) => {
      await deps.jobs.schedule(deps.db, accountId, 'test.marker', `${job.ref} ran`, FAR_MS);
      throw new Error(`${job.ref} failed`);
    },
  });
  const schedule = (kind: string, ref: string, dueMs: number) =>
    sb!.deps.transactions.run((deps) => deps.jobs.schedule(deps.db, accountId, kind, ref, dueMs));
  const rows = async () =>
    (await sb!.deps.store.all<{ ref: string }>('SELECT ref FROM jobs WHERE account_id = ?', [accountId]))
      .map((r) => r.ref)
      .sort();
  const runDue = (untilMs: number) => sb!.deps.jobs.runDue(accountId, untilMs, { includeBackground: false });
  return { schedule, rows, runDue };
}

describe('a timer that fails rolls back alone', () => {
  it('the first job of a slice fails: nothing of it commits, its row stays for the next run, the error goes on', async () => {
    const { schedule, rows, runDue } = await setUp();
    await schedule('test.fail', 'first', START_MS + 1_000);
    await schedule('test.ok', 'second', START_MS + 2_000);
    await expect(runDue(START_MS + 5_000)).rejects.toThrow('first failed');
    expect(await rows()).toEqual(['first', 'second']);
  });

  it('a later job of a slice fails: the jobs before it commit, its claim and effects roll back', async () => {
    const { schedule, rows, runDue } = await setUp();
    await schedule('test.ok', 'first', START_MS + 1_000);
    await schedule('test.fail', 'second', START_MS + 2_000);
    await schedule('test.ok', 'third', START_MS + 3_000);
    await expect(runDue(START_MS + 5_000)).rejects.toThrow('second failed');
    expect(await rows()).toEqual(['first ran', 'second', 'third']);
  });

  it('jobs that succeed all run once, in due order, and those not due yet stay', async () => {
    const { schedule, rows, runDue } = await setUp();
    await schedule('test.ok', 'b', START_MS + 2_000);
    await schedule('test.ok', 'a', START_MS + 1_000);
    await schedule('test.ok', 'later', START_MS + 9_000);
    await runDue(START_MS + 5_000);
    expect(await rows()).toEqual(['a ran', 'b ran', 'later']);
    await runDue(START_MS + 5_000);
    expect(await rows()).toEqual(['a ran', 'b ran', 'later']);
  });
});
