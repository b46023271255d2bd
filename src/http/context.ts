import type { HttpBindings } from '@hono/node-server';
import type { Account } from '../domain/accounts.js';

/** Per-request values set by middleware. */
export interface AppEnv {
  Bindings: HttpBindings;
  Variables: {
    requestId: string;
    account: Account;
    keyId: string;
    /** Set by the faults middleware: wait this long after the idempotency key is reserved, before executing. */
    faultLatencyMs?: number;
  };
}
