import {
  CheckAborted,
  CheckContext,
  CheckSkipped,
  type Check,
  type RunState,
  type Violation,
  type VerifyOptions,
} from './context.js';
import { call, ChildRefused, KeyRefused, TargetUnreachable, type Target } from './http.js';

export interface CheckResult {
  name: string;
  status: 'pass' | 'fail' | 'skip';
  ms: number;
  violations: Violation[];
  skipReason?: string;
}

export interface RunReport {
  target: string;
  isSandbox: boolean;
  /** The child sandbox the run worked in (deleted after), when the target offered one. */
  childSandbox?: string;
  results: CheckResult[];
  spentMicros: number;
}

/** Whether the target is this sandbox: it answers its simulation API. */
async function detectSandbox(target: Target): Promise<boolean> {
  const ex = await call(target, 'POST', '/sandbox/v1/clock', { body: {} });
  return ex.status === 200 && typeof (ex.json as { now?: unknown } | undefined)?.now === 'string';
}

/**
 * Runs the catalogue against a target. Mutations run only with `allowMutations`; sandbox checks only when the
 * target is this sandbox. An unreachable target throws TargetUnreachable and a refused key KeyRefused (both exit
 * code 3), never a failed check.
 */
export async function runChecks(
  target: Target,
  options: VerifyOptions,
  catalogue: Check[],
  onResult: (r: CheckResult) => void = () => {},
): Promise<RunReport> {
  // Reachability first, so a wrong URL is reported as such and not as forty failed checks.
  await call(target, 'GET', '/healthz');
  // Then the key, so a wrong one is one clear message, not every check failing and a false "not this sandbox".
  const auth = await call(target, 'POST', '/v1/wallet/assetList', { body: {} });
  if (auth.status === 401 || auth.status === 403) {
    const body = auth.json as { code?: unknown; message?: unknown } | undefined;
    const detail = typeof body?.message === 'string' ? `, code ${String(body.code)}: ${body.message}` : '';
    throw new KeyRefused(
      `${target.baseUrl} refused the API key (POST /v1/wallet/assetList answered ${auth.status}${detail})`,
    );
  }
  const isSandbox = await detectSandbox(target);
  // Mutations on this sandbox run in a child account made for the run and deleted after, so the key's own account
  // (its cards, balance, webhook) is never changed, and two runs with one key never see each other.
  const child = options.allowMutations && isSandbox ? await createChild(target) : undefined;
  const runTarget = child ? { ...target, apiKey: child.apiKey } : target;
  try {
    const state: RunState = { spentMicros: 0, values: new Map(), isSandbox };
    const results: CheckResult[] = [];
    for (const check of catalogue) {
      // Reads change nothing, so they look at the key's own account (its cards and transactions, which a fresh
      // child would not have); only mutations and sandbox checks need the child.
      const result = await runOne(check, check.kind === 'read' ? target : runTarget, options, state);
      results.push(result);
      onResult(result);
    }
    return {
      target: target.baseUrl,
      isSandbox,
      childSandbox: child?.accountId,
      results,
      spentMicros: state.spentMicros,
    };
  } finally {
    if (child) await call(target, 'POST', '/sandbox/v1/sandboxes/delete', { body: { accountId: child.accountId } });
  }
}

/** Funds the checks may spend: mutation checks stay within --max-spend, sandbox checks seed what they use. */
const CHILD_BALANCE = 1000;

/** A child sandbox of the key's account, or undefined when the target has none (an older sandbox: 404). */
async function createChild(target: Target): Promise<{ accountId: string; apiKey: string } | undefined> {
  const ex = await call(target, 'POST', '/sandbox/v1/sandboxes/create', {
    body: { name: 'card-sandbox verify', balance: CHILD_BALANCE, ttlSeconds: 3600 },
  });
  if (ex.status === 404) return undefined;
  const body = ex.json as { accountId?: string; apiKey?: string; message?: string } | undefined;
  if (ex.status !== 200 || !body?.accountId || !body.apiKey) {
    // Running on the key's own account instead would change it: refuse, saying why.
    throw new ChildRefused(
      `the target refused a child sandbox for the run (HTTP ${ex.status}: ${body?.message ?? ex.text.slice(0, 200)})`,
    );
  }
  return { accountId: body.accountId, apiKey: body.apiKey };
}

async function runOne(check: Check, target: Target, options: VerifyOptions, state: RunState): Promise<CheckResult> {
  const base = { name: check.name, violations: [] as Violation[] };
  if (check.kind === 'mutation' && !options.allowMutations) {
    return { ...base, status: 'skip', ms: 0, skipReason: 'needs --allow-mutations' };
  }
  if (check.kind === 'sandbox' && !state.isSandbox) {
    return { ...base, status: 'skip', ms: 0, skipReason: 'the target is not this sandbox (no /sandbox/v1)' };
  }
  if (check.kind === 'sandbox' && !options.allowMutations) {
    return { ...base, status: 'skip', ms: 0, skipReason: 'needs --allow-mutations' };
  }
  const ctx = new CheckContext(target, options, state);
  const started = performance.now();
  try {
    await check.run(ctx);
  } catch (err) {
    if (err instanceof CheckSkipped) {
      return { ...base, status: 'skip', ms: performance.now() - started, skipReason: err.message };
    }
    if (err instanceof TargetUnreachable) throw err;
    if (!(err instanceof CheckAborted)) ctx.fail(`check crashed: ${err instanceof Error ? err.message : String(err)}`);
  }
  const ms = performance.now() - started;
  return { ...base, violations: ctx.violations, status: ctx.violations.length ? 'fail' : 'pass', ms };
}
