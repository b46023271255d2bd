import {
  CheckAborted,
  CheckContext,
  CheckSkipped,
  type Check,
  type RunState,
  type Violation,
  type VerifyOptions,
} from './context.js';
import { call, KeyRefused, TargetUnreachable, type Target } from './http.js';

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
  const state: RunState = { spentMicros: 0, values: new Map(), isSandbox: await detectSandbox(target) };
  const results: CheckResult[] = [];
  for (const check of catalogue) {
    const result = await runOne(check, target, options, state);
    results.push(result);
    onResult(result);
  }
  return { target: target.baseUrl, isSandbox: state.isSandbox ?? false, results, spentMicros: state.spentMicros };
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
