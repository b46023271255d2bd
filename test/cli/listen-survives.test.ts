import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, spawnCli, startSandbox, stop } from '../helpers/cli-process.js';

// `card-sandbox listen` survives any client: one that announces a body and goes away before sending it (any local
// process can) ends only its own request, and the next delivery is verified and printed.

const KEY = 'sk_test_listen_abort_key_000000000000000000';

/** `Content-Length: 100`, 10 bytes, then the connection closed (or reset). */
function abortedPost(url: string, how: 'end' | 'reset'): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        'POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id":"ev_',
      );
      if (how === 'end') socket.end();
      else socket.resetAndDestroy();
    });
    socket.on('close', () => resolve());
    socket.on('error', () => {});
  });
}

describe('card-sandbox listen, after a client that went away mid-request', () => {
  it('keeps running and verifies and prints the next delivery', async () => {
    ensureBuilt();
    const sandbox = await startSandbox(KEY, { SANDBOX_SEED_BALANCE: '50' });
    const listen = spawnCli(['listen', '--base-url', sandbox.url, '--api-key', KEY, '--port', '0']);
    try {
      const [, url] = await listen.waitForOutput(/Ready: listening on (http:\S+),/);
      await abortedPost(url!, 'end');
      await abortedPost(url!, 'reset');
      await fetch(`${sandbox.url}/v1/card/create`, {
        method: 'POST',
        headers: { 'X-API-KEY': KEY, 'Content-Type': 'application/json' },
        body: JSON.stringify({ amount: 20, currency: 'USDT' }),
      });
      await listen.waitForOutput(/ card\.created {2}evt_\w+/);
      expect(listen.child.exitCode).toBeNull();
      expect(listen.stderr()).toBe('');
    } finally {
      await stop(listen);
      await stop(sandbox);
    }
  }, 300_000);
});
