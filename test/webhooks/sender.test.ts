import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendWebhook, type SendOptions } from '../../src/webhooks/sender.js';
import { isPublicAddress } from '../../src/webhooks/url-policy.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

let rx: Receiver;
beforeEach(async () => {
  rx = await startReceiver();
});
afterEach(() => rx.close());

const send = (over: Partial<SendOptions>) =>
  sendWebhook({ url: rx.url, body: '{}', headers: {}, timeoutMs: 2000, refuseInternal: false, now: () => 0, ...over });

describe('hosted mode never connects to non-public addresses (checked on the address dialled)', () => {
  it('refuses an internal IP literal without connecting', async () => {
    expect(await send({ refuseInternal: true })).toMatchObject({
      statusCode: null,
      error: 'refused: url is a non-public address (loopback)',
    });
    expect(rx.received).toHaveLength(0);
  });

  it('refuses a host name that resolves to an internal address (DNS rebinding)', async () => {
    const result = await send({ url: rx.url.replace('127.0.0.1', 'localhost'), refuseInternal: true });
    expect(result.error).toMatch(/non-public address \(loopback\)/);
    expect(rx.received).toHaveLength(0);
  });

  it('local mode connects to loopback', async () => {
    rx.validate = false; // the sender is tested with a bare body, not an event
    expect(await send({})).toMatchObject({ statusCode: 200, error: null });
  });
});

describe('isPublicAddress: a hosted sandbox dials public unicast addresses only', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.255.0.1', true],
    ['172.31.255.255', true],
    ['172.32.0.1', false],
    ['192.168.0.10', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['::', true],
    ['fe80::abcd', true],
    ['fd12:3456::1', true],
    ['::ffff:192.168.1.1', true],
    ['::7f00:1', true],
    ['::a00:1', true],
    ['64:ff9b::7f00:1', true],
    ['64:ff9b:1::a00:1', true],
    ['8.8.8.8', false],
    ['2606:4700::1111', false],
    ['::ffff:8.8.8.8', false],
  ])('%s -> %s', (address, internal) => {
    expect(isPublicAddress(address)).toBe(!internal);
  });
});
