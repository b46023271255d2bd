import { call, toCurl, type CallOptions, type Exchange, type Target } from './http.js';

interface ContractViolation {
  schemaId: string;
  schemaPath: string;
  instancePath: string;
  message: string;
}

/** The contract side of the harness, injected so the checks never depend on where schemas come from. */
export interface Validator {
  validateResponse(
    method: string,
    path: string,
    status: number,
    body: unknown,
    opts?: { strict?: boolean },
  ): ContractViolation[];
  hasContract(method: string, path: string): boolean;
  validateEvent?(envelope: unknown, opts?: { strict?: boolean }): ContractViolation[];
}

export interface Violation {
  message: string;
  curl?: string;
  status?: number;
  /** The raw answer, cut short, when it is not what a contract can judge (not JSON, wrong status). */
  raw?: string;
  schemaPath?: string;
  instancePath?: string;
}

/** Thrown by a check to stop early; the violations recorded so far are the result. */
export class CheckAborted extends Error {}
export class CheckSkipped extends Error {}

export interface VerifyOptions {
  strict: boolean;
  allowMutations: boolean;
  /** Budget of USDT a run may move out of the wallet, in micro-units. */
  maxSpendMicros: number;
  validator: Validator;
}

/** Shared across the checks of one run: what earlier checks made (a card) and what was spent. */
export interface RunState {
  spentMicros: number;
  isSandbox?: boolean;
  values: Map<string, unknown>;
}

export class CheckContext {
  readonly violations: Violation[] = [];

  constructor(
    readonly target: Target,
    readonly options: VerifyOptions,
    readonly state: RunState,
  ) {}

  call(method: string, path: string, opts?: CallOptions): Promise<Exchange> {
    return call(this.target, method, path, opts);
  }

  post(path: string, body: unknown = {}, opts: Omit<CallOptions, 'body'> = {}): Promise<Exchange> {
    return this.call('POST', path, { ...opts, body });
  }

  fail(message: string, ex?: Exchange): void {
    this.violations.push({
      message,
      ...(ex && { curl: toCurl(this.target.baseUrl, ex), status: ex.status, raw: ex.text.slice(0, 300) }),
    });
  }

  /** Records a violation unless the status is one of `expected`; returns whether it matched. */
  expectStatus(ex: Exchange, ...expected: number[]): boolean {
    if (expected.includes(ex.status)) return true;
    this.fail(`expected HTTP ${expected.join(' or ')}, got ${ex.status}`, ex);
    return false;
  }

  /** The error body rule: HTTP status and `{code, message}` with the given code. */
  expectError(ex: Exchange, status: number, code: number): boolean {
    if (!this.expectStatus(ex, status)) return false;
    const body = ex.json as { code?: unknown; message?: unknown } | undefined;
    if (!body || body.code !== code || typeof body.message !== 'string') {
      this.fail(`expected an error body {code: ${code}, message: string}`, ex);
      return false;
    }
    this.expectContract(ex);
    return true;
  }

  /** Validates the answer against its contract (strictly with --strict); a non-JSON answer is a violation. */
  expectContract(ex: Exchange): void {
    const route = ex.path.split('?')[0]!;
    if (!this.options.validator.hasContract(ex.method, route)) return;
    if (ex.json === undefined && ex.text !== '') {
      this.fail('the answer is not JSON', ex);
      return;
    }
    const found = this.options.validator.validateResponse(ex.method, route, ex.status, ex.json, {
      strict: this.options.strict,
    });
    for (const v of found) {
      this.violations.push({
        message: `contract ${v.schemaId}: ${v.instancePath || '/'} ${v.message}`,
        curl: toCurl(this.target.baseUrl, ex),
        status: ex.status,
        schemaPath: v.schemaPath,
        instancePath: v.instancePath,
      });
    }
  }

  /** Stops the check here when the answer is not the expected success (later steps would only add noise). */
  require(ok: boolean, why?: string): asserts ok {
    if (!ok) {
      if (why) this.fail(why);
      throw new CheckAborted();
    }
  }

  skip(reason: string): never {
    throw new CheckSkipped(reason);
  }

  /** Reserves part of the spend budget; skips the check when the run would exceed --max-spend. */
  spend(micros: number): void {
    if (this.state.spentMicros + micros > this.options.maxSpendMicros) {
      this.skip(
        `would exceed --max-spend (${this.state.spentMicros + micros} > ${this.options.maxSpendMicros} micro-USDT)`,
      );
    }
    this.state.spentMicros += micros;
  }
}

type CheckKind = 'read' | 'mutation' | 'sandbox';

export interface Check {
  name: string;
  kind: CheckKind;
  run(ctx: CheckContext): Promise<void>;
}
