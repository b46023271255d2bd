import { assertInTransaction } from '../../store/db.js';
import {
  anyFaultRow,
  armedFaultRows,
  clearFaults,
  deleteFault,
  insertFault,
  takeFaultRow,
  type FaultRow,
} from '../../store/faults.js';
import type { Deps } from '../kernel/deps.js';

// Injected faults (sandbox/v1/faults): per account, matched by the full request path, first rule first,
// each applying to its next `count` matching requests.

export interface FaultRule {
  path: string;
  count: number;
  latencyMs: number;
  respond?: { httpStatus: number; code: number; message?: string };
  dropResponse: boolean;
  /** Held until the account releases it (faults/release, faults/clear, reset), instead of for a latency. */
  hold: boolean;
}

const toRule = (r: FaultRow): FaultRule => ({
  path: r.path,
  count: r.remaining,
  latencyMs: r.latency_ms,
  ...(r.respond_status !== null
    ? {
        respond: {
          httpStatus: r.respond_status,
          code: r.respond_code!,
          ...(r.respond_message ? { message: r.respond_message } : {}),
        },
      }
    : {}),
  dropResponse: r.drop_response === 1,
  hold: r.hold === 1,
});

/** Replaces the account's rules with `rules`. */
/** Replaces the account's fault rules; answers them as they now stand. */
export function setFaults(deps: Pick<Deps, 'db' | 'faultHint'>, accountId: string, rules: FaultRule[]): FaultRule[] {
  const { db } = deps;
  assertInTransaction(db, 'setFaults');
  deps.faultHint.armed = undefined;
  clearFaults(db, accountId);
  for (const r of rules) {
    insertFault(db, accountId, {
      path: r.path,
      remaining: r.count,
      latency_ms: r.latencyMs,
      respond_status: r.respond?.httpStatus ?? null,
      respond_code: r.respond?.code ?? null,
      respond_message: r.respond?.message ?? null,
      drop_response: r.dropResponse ? 1 : 0,
      hold: r.hold ? 1 : 0,
    });
  }
  return listFaults(deps, accountId);
}

/** Removes every rule of the account. */
export { clearFaults };

/** Rules still armed, in matching order. */
function listFaults(deps: Pick<Deps, 'db'>, accountId: string): FaultRule[] {
  const { db } = deps;
  return armedFaultRows(db, accountId).map(toRule);
}

/** Whether any account has an armed rule (spent rules are deleted): lets every request skip the key lookup in the common case. */
export function anyArmedFault(deps: Pick<Deps, 'db' | 'faultHint'>): boolean {
  if (deps.faultHint.armed === false) return false;
  const armed = anyFaultRow(deps.db);
  deps.faultHint.armed = armed;
  return armed;
}

/** The first armed rule for this path, counted down by one (atomically: two requests never take the same use). */
export function takeFault(deps: Pick<Deps, 'db'>, accountId: string, path: string): FaultRule | undefined {
  const { db } = deps;
  assertInTransaction(db, 'takeFault');
  const row = takeFaultRow(db, accountId, path);
  // A spent rule is deleted so the table stays empty when no fault is armed.
  if (row?.remaining === 0) deleteFault(db, row.id);
  return row && toRule(row);
}
