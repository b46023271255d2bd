import { DomainError, invalidField } from '../domain/kernel/errors.js';
import {
  DEFAULT_WINDOW_SECONDS,
  getRun,
  listRuns,
  runView,
  settleAtWindowEnd,
  settleOpenRun,
  startRun,
  stopRun,
} from '../domain/readiness/runs.js';
import { postLedger } from '../domain/readiness/ledger-checks.js';
import { MAX_SENDING_PER_TENANT, deliveriesSent, runsSending, trackSending } from '../domain/readiness/sending.js';
import { tenantOf } from '../domain/accounts/tenants.js';
import { findWebhookConfig, signingSecret } from '../domain/webhooks/config.js';
import type { Handlers } from '../http/router.js';
import { OK } from '../http/envelope.js';
import { errorResponse } from '../http/errors.js';
import { runCommand } from '../http/run-command.js';
import { microsOfSignedDecimal } from '../http/amounts.js';
import { windowLog } from '../request-log/window.js';
import type { ServerDeps } from '../http/server-deps.js';
import { sendReadinessDeliveries } from '../webhooks/readiness-sender.js';
import { webhookUrlProblem } from '../webhooks/url-policy.js';

/** Where a run's test deliveries go and the secret that signs them, or undefined when the account has no webhook. */
async function receiverOf(deps: ServerDeps, accountId: string, webhookUrl: string | undefined) {
  const config = await findWebhookConfig(deps, accountId);
  const secret = await signingSecret(deps, accountId);
  return config && secret ? { url: webhookUrl ?? config.url, secret } : undefined;
}

/**
 * How long a stop waits for deliveries another instance sends: the duplicate's two attempts, and a dead sender's lease
 * before another takes them over.
 */
const sendingBoundMs = (deps: ServerDeps) => 2 * deps.config.webhookTimeoutMs + deps.config.jobLeaseMs;

/**
 * readiness/run, get, stop, list and ledger (docs/readiness.md): a run grades the partner's side of the integration,
 * its webhook receiver by test deliveries, its API use by the request log of a window in which the run arms faults,
 * and its ledger by what it posts of it.
 */
export function readinessHandlers(deps: ServerDeps): Handlers {
  const log = windowLog(deps);
  return {
    'POST /sandbox/v1/readiness/run': async (c, body) => {
      const webhookUrl = body.webhookUrl;
      const windowSeconds = body.windowSeconds ?? DEFAULT_WINDOW_SECONDS;
      const fullWindow = body.fullWindow ?? false;
      // The same policy as PUT /v1/webhook: a hosted sandbox never posts into its own network.
      const problem = webhookUrl === undefined ? undefined : await webhookUrlProblem(deps.config, webhookUrl);
      if (problem) throw invalidField(problem.replace(/^url\b/, 'webhookUrl'));
      const account = c.get('account');
      const accountId = account.id;
      const tenantId = tenantOf(account);
      await settleOpenRun(deps, log, accountId);
      // An account made to deliver nothing (a replay's child sandbox) has no receiver: its receiver checks are not observed.
      const receiver = account.delivers ? await receiverOf(deps, accountId, webhookUrl) : undefined;
      // The bound is on what this instance sends: each instance grants its share, as of every tenant budget.
      if (receiver && runsSending(deps, tenantId) >= deps.deployment.share(MAX_SENDING_PER_TENANT)) {
        // Each run's deliveries end within two webhook timeouts (the duplicate's two attempts).
        c.header('Retry-After', String(Math.ceil((2 * deps.config.webhookTimeoutMs) / 1000)));
        return errorResponse(c, new DomainError('READINESS_SENDING_LIMIT'));
      }
      const { run, deliveries } = await deps.transactions.run((deps) =>
        startRun(deps, {
          accountId,
          windowSeconds,
          receiverUrl: receiver?.url ?? null,
          requestLog: deps.config.requestLog,
          fullWindow,
          claim: { holder: deps.instance, untilMs: Date.now() + deps.config.jobLeaseMs },
        }),
      );
      if (receiver) {
        // After the answer, never inside a transaction: each delivery waits on the network (the webhook timeout).
        const sending = { accountId, ...receiver, holder: deps.instance, leaseMs: deps.config.jobLeaseMs, deliveries };
        const sent = new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
          sendReadinessDeliveries(deps, sending),
        );
        trackSending(deps, run.id, tenantId, sent);
      }
      if (deps.config.backgroundJobs) settleAtWindowEnd(deps, log, run);
      return c.json({ ...OK, ...(await runView(deps, log, run)) });
    },
    'POST /sandbox/v1/readiness/get': async (c, body) => {
      const runId = body.runId;
      return c.json({ ...OK, ...(await runView(deps, log, await getRun(deps, log, c.get('account').id, runId))) });
    },
    'POST /sandbox/v1/readiness/stop': async (c, body) => {
      const runId = body.runId;
      const accountId = c.get('account').id;
      await stopRun(deps, accountId, runId);
      // The answer is the final report: the test deliveries still on the wire are waited for (each is bounded).
      await deliveriesSent(deps, runId, sendingBoundMs(deps));
      return c.json({ ...OK, ...(await runView(deps, log, await getRun(deps, log, accountId, runId))) });
    },
    'POST /sandbox/v1/readiness/ledger': async (c, body) => {
      const cards = body.cards.map((card) => ({
        cardId: card.cardId,
        availableMicros: microsOfSignedDecimal(card.availableAmount),
        heldMicros: microsOfSignedDecimal(card.frozenAmount),
      }));
      const post = { requestId: c.get('requestId'), cards };
      return c.json({ ...OK, ...(await runCommand(c, deps, (deps) => postLedger(deps, c.get('account').id, post))) });
    },
    'POST /sandbox/v1/readiness/list': async (c) => {
      const runs = [];
      for (const run of await listRuns(deps, log, c.get('account').id)) runs.push(await runView(deps, log, run));
      return c.json({ ...OK, runs });
    },
  };
}
