import { expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createTestSandbox } from '../helpers/sandbox.js';

// Every operation's pipeline, its steps by name in the order a request meets them, as src/app.ts mounts them from
// contracts/index.json: the list is checked in (pipelines.txt), so a step added, dropped or moved on any operation
// shows in review as a changed line. The keyed runner is a step of its own on every idempotent operation, before
// the handler that prepares its command.

it('mounts each operation with the steps pipelines.txt lists, in that order', async () => {
  const sb = createTestSandbox();
  try {
    const { pipelines } = createApp(sb.deps);
    const text = [...pipelines].map(([key, steps]) => `${key}\n  ${steps.join(' > ')}\n`).join('');
    await expect(text).toMatchFileSnapshot('pipelines.txt');
  } finally {
    await sb.close();
  }
});

it('runs every idempotent operation through the keyed runner, and only those', async () => {
  const sb = createTestSandbox();
  try {
    const { pipelines } = createApp(sb.deps);
    const keyed = [...pipelines].filter(([, steps]) => steps.includes('keyedRunner')).map(([key]) => key);
    const prepared = [...pipelines].filter(([, steps]) => steps.at(-1) === 'prepareCommand').map(([key]) => key);
    expect(keyed).toEqual([
      'POST /v1/card/create',
      'POST /v1/card/deposit',
      'POST /v1/card/freeze',
      'POST /v1/card/unfreeze',
      'POST /v1/card/cancel',
    ]);
    expect(prepared).toEqual(keyed);
  } finally {
    await sb.close();
  }
});
