import type { Check, CheckContext } from '../context.js';

interface Config {
  configured?: boolean;
  url?: string;
  enabled?: boolean;
  deliver3dsCode?: boolean;
  secret?: string;
  secretPrefix?: string;
}

/**
 * PUT, GET and rotate-secret of the webhook configuration. On a target that is not this sandbox and already has a
 * configuration the check is skipped: rotating would break the partner's live receiver.
 */
export const webhookConfigCheck: Check = {
  name: 'webhook: PUT returns the secret once, GET shows only secretPrefix, rotate-secret returns a new secret',
  kind: 'mutation',
  async run(ctx: CheckContext) {
    const current = await ctx.call('GET', '/v1/webhook');
    ctx.require(ctx.expectStatus(current, 200));
    const existing = current.json as Config;
    if (existing.configured && !ctx.state.isSandbox) ctx.skip('the target has a live webhook configuration');
    const put = await ctx.call('PUT', '/v1/webhook', {
      body: { url: 'https://verify.example.com/hooks', enabled: false, deliver3dsCode: false },
    });
    ctx.require(ctx.expectStatus(put, 200));
    ctx.expectContract(put);
    const read = await ctx.call('GET', '/v1/webhook');
    ctx.require(ctx.expectStatus(read, 200));
    ctx.expectContract(read);
    const cfg = read.json as Config;
    if (cfg.secret !== undefined) ctx.fail('GET returned the full secret', read);
    if (!cfg.secretPrefix?.startsWith('whsec_')) ctx.fail('secretPrefix does not begin with whsec_', read);
    if (cfg.url !== 'https://verify.example.com/hooks' || cfg.enabled !== false)
      ctx.fail('GET does not show the PUT', read);
    const rotated = await ctx.post('/v1/webhook/rotate-secret');
    ctx.require(ctx.expectStatus(rotated, 200));
    ctx.expectContract(rotated);
    const secret = (rotated.json as Config).secret;
    if (!secret?.startsWith('whsec_')) ctx.fail('rotate-secret did not return a whsec_ secret', rotated);
    if (existing.configured) {
      // Restore what the sandbox account had (the secret stays rotated: say so in the report).
      await ctx.call('PUT', '/v1/webhook', {
        body: { url: existing.url, enabled: existing.enabled, deliver3dsCode: existing.deliver3dsCode },
      });
    } else {
      const del = await ctx.call('DELETE', '/v1/webhook');
      ctx.expectStatus(del, 200, 204);
    }
  },
};
