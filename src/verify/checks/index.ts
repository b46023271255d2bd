import type { Check } from '../context.js';
import { authChecks } from './auth.js';
import { cancelCheck, cardMutationChecks } from './cards.js';
import { errorChecks } from './errors.js';
import { idempotencyChecks } from './idempotency.js';
import { paginationChecks } from './pagination.js';
import { lookupChecks, readChecks } from './reads.js';
import { sandboxChecks } from './sandbox.js';
import { webhookConfigCheck } from './webhook.js';

/** The catalogue, in run order: reads first, then mutations on one card, which the cancel check ends. */
export const CATALOGUE: Check[] = [
  ...authChecks,
  ...readChecks,
  ...lookupChecks,
  ...errorChecks,
  ...paginationChecks,
  ...cardMutationChecks,
  ...idempotencyChecks,
  cancelCheck,
  webhookConfigCheck,
  ...sandboxChecks,
];
