import type { ServerDeps } from '../http/server-deps.js';
import { runCommand } from '../http/run-command.js';
import type { Handlers } from '../http/router.js';

import {
  findWebhookConfig,
  putWebhookConfig,
  rotateWebhookSecret,
  type WebhookConfig,
} from '../domain/webhooks/config.js';
import { removeWebhook } from '../domain/webhooks/deliveries.js';
import { webhookUrlProblem } from '../webhooks/url-policy.js';
import { OK } from '../http/envelope.js';
import { invalidField } from '../domain/kernel/errors.js';

/** The configuration as reads show it: the secret only as its prefix. */
function configView(config: WebhookConfig) {
  return {
    configured: true,
    url: config.url,
    enabled: config.enabled,
    deliver3dsCode: config.deliver3dsCode,
    secretPrefix: config.secretPrefix,
  };
}

/** /v1/webhook: view, create or update, rotate the secret, remove (spec "Webhook configuration"). */
export const webhookHandlers = (deps: ServerDeps): Handlers => ({
  'GET /v1/webhook': (c) => {
    const config = findWebhookConfig(deps, c.get('account').id);
    return c.json(config ? configView(config) : { configured: false });
  },
  'PUT /v1/webhook': async (c, body) => {
    // Every check runs before the write, so bad input leaves the stored config as it was.
    const url = body.url;
    const enabled = body.enabled;
    const deliver3dsCode = body.deliver3dsCode;
    const problem = await webhookUrlProblem(deps.config, url);
    if (problem) throw invalidField(problem);
    const input = { url, enabled, deliver3dsCode };
    const { config, secret } = runCommand(c, deps, (now) => putWebhookConfig(deps, c.get('account').id, input, now));
    return c.json(secret === undefined ? configView(config) : { ...configView(config), secret });
  },
  'POST /v1/webhook/rotate-secret': (c) => {
    const { config, secret } = runCommand(c, deps, (now) => rotateWebhookSecret(deps, c.get('account').id, now));
    return c.json({ ...configView(config), secret });
  },
  'DELETE /v1/webhook': (c) => {
    runCommand(c, deps, () => removeWebhook(deps, c.get('account').id));
    return c.json({ ...OK });
  },
});
