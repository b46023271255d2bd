import { JSONPath } from 'jsonpath-plus';
import { createChild, deleteChild, type Child } from './child.js';
import { contractViolations, eventViolations } from './contracts.js';
import { asCurl, send, type Exchange } from './http.js';
import { match, type Mismatch } from './match.js';
import { StepFailed, type FileResult, type StepResult } from './results.js';
import { awaitDeliveries, redactOtp } from './webhook-wait.js';
import type { Inbox, Receiver } from './receiver.js';
import type { Target } from './target.js';
import { durationSeconds, render, TemplateError } from './template.js';
import type { AdminStep, Expect, RequestStep, SandboxStep, Scenario, Step, WebhookStep } from './types.js';

export interface RunOptions {
  /** Freeze a fresh account's clock unless the file asks for a running one (default true; seeding says false). */
  freezeClock?: boolean;
  /**
   * Seeding (`serve --seed`): only files that declare `account` get a fresh one, the others act on the given key's
   * account, whose balance is topped up rather than reset. Also reports each fresh account.
   */
  seeding?: { onAccount(file: string, accountId: string, apiKey: string): void };
  /** Called with each finished step, for live output. */
  onStep?: (file: string, step: StepResult) => void;
}

type Call = (RequestStep | SandboxStep | AdminStep) & { file?: string; line?: number };

/** How long a whileHeld request may take to be held: it only bounds a file whose fault never holds it. */
const HOLD_WAIT_MS = 10_000;

/** Runs one loaded scenario against a target: its account, its webhook inbox, then each step in order. */
export class ScenarioRun {
  private readonly vars: Record<string, unknown>;
  private inbox: Inbox | undefined;
  private contractsSkipped = false;
  /** The child sandbox this file runs in, deleted when it ends. */
  private child: Child | undefined;

  constructor(
    private readonly scenario: Scenario,
    private readonly target: Target,
    private readonly receiver: Receiver | undefined,
    private readonly opts: RunOptions = {},
  ) {
    this.vars = { ...scenario.vars };
  }

  async run(): Promise<FileResult> {
    try {
      return await this.runSteps();
    } finally {
      if (this.child) await deleteChild(this.target.baseUrl, this.target.apiKey!, this.child);
    }
  }

  private async runSteps(): Promise<FileResult> {
    const started = performance.now();
    const steps: StepResult[] = [];
    const record = (r: StepResult) => {
      steps.push(r);
      this.opts.onStep?.(this.scenario.file, r);
    };
    const setup = await this.timed('set up account and webhook', this.scenario.file, 1, () => this.setUp());
    if (!setup.ok) record(setup);
    let failed = !setup.ok;
    for (const step of this.scenario.steps) {
      if (failed) {
        record({ label: labelOf(step), file: step.file, line: step.line, ok: true, skipped: true, ms: 0 });
        continue;
      }
      const r = await this.timed(labelOf(step), step.file, step.line, () => this.runStep(step));
      record(r);
      failed = !r.ok;
    }
    if (!failed && this.inbox) {
      const bad = this.inbox.deliveries.filter((d) => d.problem);
      if (bad.length > 0) {
        record({
          label: 'every webhook delivery is signed and labelled correctly',
          file: this.scenario.file,
          line: 1,
          ok: false,
          ms: 0,
          failure: {
            message: `${bad.length} delivery(ies) failed verification: ${bad[0].problem}`,
            actual: bad.map((d) => ({ ...d.envelope, data: redactOtp(d.envelope.data) })),
          },
        });
      }
    }
    return {
      file: this.scenario.file,
      name: this.scenario.name,
      ok: steps.every((s) => s.ok),
      ms: Math.round(performance.now() - started),
      steps,
      contractsSkipped: this.contractsSkipped,
    };
  }

  private async timed(label: string, file: string, line: number, fn: () => Promise<void>): Promise<StepResult> {
    const started = performance.now();
    try {
      await fn();
      return { label, file, line, ok: true, ms: Math.round(performance.now() - started) };
    } catch (err) {
      const failure =
        err instanceof StepFailed
          ? err.failure
          : {
              message:
                err instanceof TemplateError
                  ? err.message
                  : `error: ${err instanceof Error ? err.message : String(err)}`,
            };
      return { label, file, line, ok: false, ms: Math.round(performance.now() - started), failure };
    }
  }

  /**
   * A fresh account through the operator API when an admin token is known, else a child sandbox of the key's account
   * when the target offers them, else the given key's account itself (a target without child sandboxes).
   */
  private async setUp(): Promise<void> {
    // Vars may use generators and earlier vars: `binId: "FEE-{{uuid}}"` is drawn once per run.
    for (const [k, v] of Object.entries(this.vars)) this.vars[k] = render(v, this.vars);
    const { account } = this.scenario;
    if (this.target.adminToken && (!this.opts.seeding || account)) {
      const x = await this.call({
        admin: 'POST /admin/v1/accounts',
        body: {
          name: this.scenario.name.slice(0, 100),
          depositAddress: account?.depositAddress ?? null,
          ...(account?.depositFeeRate !== undefined && { depositFeeRate: String(account.depositFeeRate) }),
          ...(account?.balance !== undefined && { balance: account.balance }),
          ...(account?.requireIdempotencyKey !== undefined && { requireIdempotencyKey: account.requireIdempotencyKey }),
        },
        expect: { status: 201 },
      });
      const body = x.responseBody as { accountId: string; apiKey: string };
      Object.assign(this.vars, { accountId: body.accountId, apiKey: body.apiKey });
      this.opts.seeding?.onAccount(this.scenario.file, body.accountId, body.apiKey);
      await this.freezeClock();
    } else if (this.target.childSandboxes && this.target.apiKey) {
      this.refuseAccountSettings(['requireIdempotencyKey', 'depositAddress']);
      this.child = await createChild(this.target.baseUrl, this.target.apiKey, {
        name: this.scenario.name,
        ...(account?.balance !== undefined && { balance: account.balance }),
        ...(account?.depositFeeRate !== undefined && { depositFeeRate: String(account.depositFeeRate) }),
      });
      Object.assign(this.vars, { accountId: this.child.accountId, apiKey: this.child.apiKey });
      await this.freezeClock();
    } else {
      if (!this.target.apiKey)
        throw new StepFailed({ message: 'no account: give --admin-token (a fresh account per file) or --api-key' });
      this.refuseAccountSettings(['depositFeeRate', 'requireIdempotencyKey', 'depositAddress']);
      this.vars.apiKey = this.target.apiKey;
      // Without the operator API or child sandboxes, the shared account is reset to the file's balance so files
      // start alike.
      if (account?.balance !== undefined) {
        await this.call(
          this.opts.seeding
            ? { sandbox: 'wallet/seed', body: { amount: account.balance } }
            : { sandbox: 'reset', body: { balance: account.balance } },
        );
      }
    }
    const wantsWebhook =
      this.scenario.webhook || this.scenario.steps.some((s) => 'expectWebhook' in s || 'receiver' in s);
    if (wantsWebhook) await this.configureWebhook();
  }

  /** A fresh account's clock is frozen unless the file asks for a running one (seeding runs on a running clock). */
  private async freezeClock(): Promise<void> {
    if (this.opts.freezeClock !== false && this.scenario.account?.clock !== 'running') {
      await this.call({ sandbox: 'clock', body: { mode: 'frozen' } });
    }
  }

  private refuseAccountSettings(keys: ('depositFeeRate' | 'requireIdempotencyKey' | 'depositAddress')[]): void {
    const needsAdmin = keys.filter((k) => this.scenario.account?.[k] !== undefined);
    if (needsAdmin.length > 0)
      throw new StepFailed({ message: `account.${needsAdmin.join(', account.')} needs --admin-token` });
  }

  private async configureWebhook(): Promise<void> {
    if (!this.receiver) throw new StepFailed({ message: 'this file expects webhooks but no receiver is running' });
    this.inbox = this.receiver.inbox();
    this.vars.webhookUrl = this.inbox.url;
    const x = await this.call({
      request: 'PUT /v1/webhook',
      body: { url: this.inbox.url, enabled: true, deliver3dsCode: this.scenario.webhook?.deliver3dsCode ?? false },
      expect: { contract: false },
    });
    let secret = (x.responseBody as { secret?: string } | undefined)?.secret;
    // An existing configuration answers without the secret; rotating is the only way to learn one.
    if (!secret)
      secret = (
        (await this.call({ request: 'POST /v1/webhook/rotate-secret', expect: { contract: false } })).responseBody as {
          secret?: string;
        }
      ).secret;
    if (!secret) throw new StepFailed({ message: 'the webhook configuration returned no secret' });
    this.inbox.secret = secret;
  }

  private async runStep(step: Step): Promise<void> {
    if ('request' in step && step.whileHeld) {
      await this.callWhileHeld(step, step.whileHeld);
    } else if ('request' in step || 'sandbox' in step || 'admin' in step) {
      await this.call(step);
    } else if ('advance' in step) {
      await this.call({ sandbox: 'clock', body: { advanceSeconds: durationSeconds(step.advance) } });
    } else if ('expectWebhook' in step) {
      await this.expectWebhook(step);
    } else if ('receiver' in step) {
      if (!this.inbox) throw new StepFailed({ message: 'no webhook inbox' });
      this.inbox.respondWith(step.receiver.status, step.receiver.times);
    } else if ('parallel' in step) {
      const results = await Promise.allSettled(
        step.parallel.map((s) => ('request' in s && s.whileHeld ? this.callWhileHeld(s, s.whileHeld) : this.call(s))),
      );
      const failed = results.flatMap((r, i) => (r.status === 'rejected' ? [[i, r.reason] as const] : []));
      if (failed.length > 0) {
        const [i, reason] = failed[0];
        const f = reason instanceof StepFailed ? reason.failure : { message: String(reason) };
        throw new StepFailed({ ...f, message: `parallel[${i}] (${labelOf(step.parallel[i])}): ${f.message}` });
      }
    }
  }

  /**
   * A request a fault holds, and the steps run while it is held: the request is sent, `faults/held` is read until
   * the account holds one request more than before (decided by the sandbox's state, never by a delay), the steps
   * run, `faults/release` lets every held request go on, and the request's answer is checked against its expect.
   */
  private async callWhileHeld(step: RequestStep, during: (RequestStep | SandboxStep)[]): Promise<Exchange> {
    const held = async () =>
      Number((((await this.call({ sandbox: 'faults/held' })).responseBody ?? {}) as { held?: unknown }).held);
    const before = await held();
    let answered = false;
    const outcome = this.call({ ...step, whileHeld: undefined }).then(
      (x) => ((answered = true), { x }),
      (error: unknown) => ((answered = true), { error }),
    );
    const settle = async () => {
      const o = await outcome;
      if ('error' in o) throw o.error;
      return o.x;
    };
    const deadline = performance.now() + HOLD_WAIT_MS;
    while ((await held()) <= before) {
      if (answered) {
        await settle();
        throw new StepFailed({
          message: `${labelOf(step)} was answered before a fault held it: whileHeld needs a hold rule on its path (sandbox: faults, rules [{path, hold: true}]) armed first`,
        });
      }
      if (performance.now() > deadline) {
        await this.call({ sandbox: 'faults/release' });
        await outcome;
        throw new StepFailed({ message: `${labelOf(step)}: no fault held it within ${HOLD_WAIT_MS / 1000} s` });
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    let failed: unknown;
    for (const [i, s] of during.entries()) {
      try {
        if ('request' in s && s.whileHeld) await this.callWhileHeld(s, s.whileHeld);
        else await this.call(s);
      } catch (err) {
        const f = err instanceof StepFailed ? err.failure : { message: String(err) };
        failed = new StepFailed({ ...f, message: `whileHeld[${i}] (${labelOf(s)}): ${f.message}` });
        break;
      }
    }
    // Released whatever happened, so a failed step never leaves the request (or the account's budget) held.
    await this.call({ sandbox: 'faults/release' });
    const x = await settle();
    if (failed) throw failed;
    return x;
  }

  /** One request: render, send, check status, headers, body and contract, then capture. */
  private async call(step: Call): Promise<Exchange> {
    const [method, rawPath] =
      'request' in step
        ? step.request.split(' ')
        : 'admin' in step
          ? step.admin.split(' ')
          : ['POST', `/sandbox/v1/${step.sandbox}`];
    const path = String(render(rawPath, this.vars));
    const isAdmin = 'admin' in step;
    const headers: Record<string, string> = {};
    if (isAdmin) {
      if (!this.target.adminToken) throw new StepFailed({ message: 'admin steps need --admin-token' });
      headers.Authorization = `Bearer ${this.target.adminToken}`;
    } else if (step.auth !== 'none') {
      headers['X-API-KEY'] = String(this.vars.apiKey);
    }
    for (const [k, v] of Object.entries((render(step.headers ?? {}, this.vars) as Record<string, unknown>) ?? {}))
      headers[k] = String(v);
    const body = step.body !== undefined ? render(step.body, this.vars) : method === 'POST' ? {} : undefined;
    const x = await send(method, `${this.target.baseUrl}${path}`, headers, body);
    const expect = (step.expect ? render(step.expect, this.vars) : {}) as Expect;
    const diff = await this.check(x, expect, path, 'request' in step);
    if (diff.length > 0) {
      throw new StepFailed({
        message: `${method} ${path} answered ${x.status}, not as expected`,
        curl: asCurl(x),
        diff,
        actual: x.responseBody,
      });
    }
    // A rotation (or a first PUT) made by the file itself changes the secret deliveries are signed with.
    const secret = (x.responseBody as { secret?: unknown } | undefined)?.secret;
    if (this.inbox && path.startsWith('/v1/webhook') && typeof secret === 'string') this.inbox.secret = secret;
    if (step.capture) this.capture(step.capture, x.responseBody, () => asCurl(x));
    return x;
  }

  private async check(x: Exchange, expect: Expect, path: string, partnerApi: boolean): Promise<Mismatch[]> {
    const diff: Mismatch[] = [];
    const statuses = expect.status === undefined ? undefined : ([] as number[]).concat(expect.status);
    if (statuses ? !statuses.includes(x.status) : x.status < 200 || x.status > 299) {
      diff.push({ path: 'status', expected: statuses ? statuses.join(' or ') : '2xx', actual: String(x.status) });
    }
    for (const [name, want] of Object.entries(expect.headers ?? {})) {
      diff.push(...match(want, x.responseHeaders[name.toLowerCase()], `header ${name}`));
    }
    if (expect.body !== undefined) {
      diff.push(...match(expect.body, x.responseBody));
    } else if (x.status < 300) {
      // The spec: `code` must be checked even on a 200. An unexpected non-zero code fails the step.
      const code = (x.responseBody as { code?: unknown } | undefined)?.code;
      if (typeof code === 'number' && code !== 0) diff.push({ path: '$.code', expected: '0', actual: String(code) });
    }
    if (partnerApi && expect.contract !== false && x.status !== 0) {
      const violations = await contractViolations(x.method, path, x.status, x.responseBody);
      if (violations === undefined) this.contractsSkipped = true;
      for (const v of violations ?? [])
        diff.push({
          path: `contract ${v.instancePath || '(body)'}`,
          expected: 'the documented shape',
          actual: v.message,
        });
    }
    return diff;
  }

  private capture(captures: Record<string, string>, json: unknown, context: () => string): void {
    for (const [name, path] of Object.entries(captures)) {
      const found = JSONPath({ path, json: (json ?? null) as object, wrap: true }) as unknown[];
      if (found.length === 0) {
        throw new StepFailed({ message: `capture ${name}: ${path} matched nothing`, curl: context(), actual: json });
      }
      this.vars[name] = found[0];
    }
  }

  private async expectWebhook(step: WebhookStep): Promise<void> {
    const want = step.expectWebhook;
    const claimed = await awaitDeliveries(this.inbox!, {
      type: want.type,
      id: want.id === undefined ? undefined : String(render(want.id, this.vars)),
      data: want.data === undefined ? undefined : render(want.data, this.vars),
      count: want.count,
      withinSeconds: durationSeconds(want.within ?? (want.count === 0 ? '1s' : '5s')),
    });
    for (const d of claimed) {
      const violations = await eventViolations(d.envelope);
      if (violations === undefined) this.contractsSkipped = true;
      if (violations && violations.length > 0) {
        throw new StepFailed({
          message: `the ${want.type} event breaks its contract`,
          diff: violations.map((v) => ({
            path: `contract ${v.instancePath || '(body)'}`,
            expected: 'the documented shape',
            actual: v.message,
          })),
          actual: { ...d.envelope, data: redactOtp(d.envelope.data) },
        });
      }
    }
    if (step.capture && claimed.length > 0) this.capture(step.capture, claimed[0].envelope, () => '');
  }
}
/** What a step is called in output: its name, else what it does. */
function labelOf(step: Step | RequestStep | SandboxStep): string {
  if (step.name) return step.name;
  if ('request' in step) return step.request;
  if ('sandbox' in step) return `sandbox ${step.sandbox}`;
  if ('admin' in step) return step.admin;
  if ('advance' in step) return `advance ${step.advance}`;
  if ('expectWebhook' in step) return `expect webhook ${step.expectWebhook.type}`;
  if ('receiver' in step) return `receiver answers ${step.receiver.status}`;
  return `${step.parallel.length} requests in parallel`;
}
