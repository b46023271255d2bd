import { Hono } from 'hono';
import type { ServerDeps } from '../server-deps.js';
import { runCommand } from '../http/command.js';
import type { AppEnv } from '../http/context.js';
import { readJsonObject } from '../http/middleware/json-body.js';
import { optionalBoolean, requiredString } from '../http/validate.js';
import {
  findWebhookConfig,
  putWebhookConfig,
  rotateWebhookSecret,
  type WebhookConfig,
} from '../domain/webhook-config.js';
import { removeWebhook } from '../domain/webhook-deliveries.js';
import { webhookUrlProblem } from '../webhooks/url-policy.js';
import { OK } from '../http/envelope.js';
import { invalidField } from '../domain/errors.js';

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
export function webhookRoutes(deps: ServerDeps) {
  return new Hono<AppEnv>()
    .get('/', (c) => {
      const config = findWebhookConfig(deps, c.get('account').id);
      return c.json(config ? configView(config) : { configured: false });
    })
    .put('/', async (c) => {
      // Every check runs before the write, so bad input leaves the stored config as it was.
      const body = await readJsonObject(c);
      const url = requiredString(body, 'url');
      const enabled = optionalBoolean(body, 'enabled');
      const deliver3dsCode = optionalBoolean(body, 'deliver3dsCode');
      const problem = await webhookUrlProblem(deps.config, url);
      if (problem) throw invalidField(problem);
      const input = { url, enabled, deliver3dsCode };
      const { config, secret } = runCommand(c, deps, (now) => putWebhookConfig(deps, c.get('account').id, input, now));
      return c.json(secret === undefined ? configView(config) : { ...configView(config), secret });
    })
    .post('/rotate-secret', (c) => {
      const { config, secret } = runCommand(c, deps, (now) => rotateWebhookSecret(deps, c.get('account').id, now));
      return c.json({ ...configView(config), secret });
    })
    .delete('/', (c) => {
      runCommand(c, deps, () => removeWebhook(deps, c.get('account').id));
      return c.json({ ...OK });
    });
}
