import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type Config } from '../../src/config.js';
import { ClientAddresses } from '../../src/http/client-address.js';
import { HOSTED_ADMIN_TOKEN, startHosted, type HostedServer } from '../helpers/hosted-server.js';

// Behind a proxy or a load balancer every connection comes from the proxy (docs/hosted.md, "Behind a proxy or load
// balancer"). With `--trust-proxy CIDR[,CIDR...]` a connection from a trusted address names its client in
// X-Forwarded-For: the rightmost address there that is not trusted. From any other address, and without the flag, the
// header is ignored: a client cannot spread its failures over invented addresses, nor blame another. Every loopback
// address is this host's (127.0.0.0/8), so one machine plays the proxy and its clients.

const base = ['--mode', 'hosted', '--admin-token', HOSTED_ADMIN_TOKEN];

describe('--trust-proxy / SANDBOX_TRUST_PROXY', () => {
  it.each([
    ['10.0.0.0/8', ['10.0.0.0/8']],
    [' 10.1.2.3/8 , 192.0.2.7 ', ['10.0.0.0/8', '192.0.2.7/32']],
    ['2001:db8::/32,::1', ['2001:db8::/32', '::1/128']],
    ['::ffff:10.0.0.0/104', ['10.0.0.0/8']],
    ['10.0.0.0/8,10.0.0.0/8', ['10.0.0.0/8']],
  ])('reads %j as %j', (text, ranges) => {
    expect(loadConfig([...base, '--trust-proxy', text], {}).config.trustProxy).toEqual(ranges);
    expect(loadConfig(base, { SANDBOX_TRUST_PROXY: text }).config.trustProxy).toEqual(ranges);
  });

  it('is empty by default, and the flag beats the environment', () => {
    expect(loadConfig(base, {}).config.trustProxy).toEqual([]);
    const env = { SANDBOX_TRUST_PROXY: '10.0.0.0/8' };
    expect(loadConfig([...base, '--trust-proxy', '192.0.2.0/24'], env).config.trustProxy).toEqual(['192.0.2.0/24']);
  });

  it.each(['10.0.0.0/33', '10.0.0/8', 'proxy.internal', '10.0.0.0/8,', '2001:db8::/129', '10.0.0.0/8/1', '::1%lo'])(
    'refuses %j with a usage error naming the item',
    (text) => {
      const item = text.endsWith(',') ? '' : text;
      expect(() => loadConfig([...base, '--trust-proxy', text], {})).toThrow(
        new ConfigError(
          `trust proxy must be CIDRs separated by commas (10.0.0.0/8,2001:db8::/32), got ${JSON.stringify(item)}`,
        ),
      );
    },
  );
});

describe('the client of a request', () => {
  const addresses = new ClientAddresses(['10.0.0.0/8', '2001:db8:ff::/48']);

  it.each([
    ['an untrusted connection, whatever it forwards', '198.51.100.1', '203.0.113.9', '198.51.100.1'],
    ['a trusted connection without the header', '10.0.0.5', undefined, '10.0.0.5'],
    ['a trusted connection', '10.0.0.5', '203.0.113.9', '203.0.113.9'],
    ['the rightmost untrusted hop, not what the client wrote', '10.0.0.5', '192.0.2.66, 203.0.113.9', '203.0.113.9'],
    ['past trusted hops', '10.0.0.5', '192.0.2.66, 203.0.113.9, 10.9.9.9, 10.8.8.8', '203.0.113.9'],
    ['every hop trusted: the leftmost', '10.0.0.5', '10.1.1.1, 10.2.2.2', '10.1.1.1'],
    ['a hop that is no address: the trusted hop that passed it on', '10.0.0.5', '203.0.113.9, unknown', '10.0.0.5'],
    ['a hop with its port', '10.0.0.5', '203.0.113.9:5123', '203.0.113.9'],
    ['an IPv6 hop in brackets with its port', '10.0.0.5', '[2001:db8:1::7]:443', '2001:db8:1::7'],
    ['an IPv4-mapped proxy address', '::ffff:10.0.0.5', '203.0.113.9', '203.0.113.9'],
    ['an IPv6 proxy', '2001:db8:ff:1::2', '::ffff:203.0.113.9', '203.0.113.9'],
    ['headers sent twice, joined', '10.0.0.5', ['192.0.2.66', '203.0.113.9'], '203.0.113.9'],
  ])('%s', (_, remote, forwardedFor, client) => {
    expect(addresses.resolve(remote, forwardedFor)).toBe(client);
  });

  it('without trusted proxies the header is never read', () => {
    expect(new ClientAddresses([]).resolve('10.0.0.5', '203.0.113.9')).toBe('10.0.0.5');
  });
});

let server: HostedServer | undefined;
afterEach(async () => {
  await server?.close(0);
  server = undefined;
});

async function start(config: Partial<Config>) {
  server = await startHosted({}, 'info', 1_000, config);
  return new URL(server.url);
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** One request on a connection of its own from `from` (a loopback address), with its X-Forwarded-For if any. */
function call(
  url: URL,
  path: string,
  { from, forwardedFor, method = 'GET', headers = {}, body }: CallOptions,
): Promise<Answer> {
  const all: Record<string, string> = { ...headers };
  if (forwardedFor !== undefined) all['x-forwarded-for'] = forwardedFor;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path, method, headers: all, localAddress: from, agent: false },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface CallOptions {
  from: string;
  forwardedFor?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

const PROXY = '127.0.0.5';

/** A wrong operator token, as `client` sends it from `from`. */
const wrongToken = (url: URL, from: string, forwardedFor?: string) =>
  call(url, '/admin/v1/accounts/acct_x', { from, forwardedFor, headers: { authorization: 'Bearer wrong-token' } });

describe('per-client throttles count the client a trusted proxy names', () => {
  it('the operator-token throttle: behind a trusted proxy, per forwarded client', async () => {
    const url = await start({ trustProxy: [`${PROXY}/32`] });
    for (let i = 0; i < 10; i++) expect((await wrongToken(url, PROXY, '198.51.100.7')).status).toBe(401);
    const throttled = await wrongToken(url, PROXY, '198.51.100.7');
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    // What the client wrote left of the proxy's hop proves nothing: it is still that client.
    expect((await wrongToken(url, PROXY, '203.0.113.1, 198.51.100.7')).status).toBe(429);
    // Another partner behind the same proxy is not locked out by the first one's failures.
    expect((await wrongToken(url, PROXY, '198.51.100.8')).status).toBe(401);
    const right = await call(url, '/admin/v1/accounts/acct_x', {
      from: PROXY,
      forwardedFor: '198.51.100.9',
      headers: { authorization: `Bearer ${HOSTED_ADMIN_TOKEN}` },
    });
    expect(right.status).toBe(404);
  });

  it('without the flag a forged X-Forwarded-For changes nothing', async () => {
    const url = await start({});
    // Ten failures, each claiming another client: all counted against the connection's own address.
    for (let i = 0; i < 10; i++) expect((await wrongToken(url, '127.0.0.6', `198.51.100.${i}`)).status).toBe(401);
    expect((await wrongToken(url, '127.0.0.6', '198.51.100.200')).status).toBe(429);
    // Nor can a client blame another: naming the throttled address from elsewhere throttles nothing.
    expect((await wrongToken(url, '127.0.0.7', '127.0.0.6')).status).toBe(401);
  });

  it('with the flag, the header from an address it does not trust changes nothing', async () => {
    const url = await start({ trustProxy: [`${PROXY}/32`] });
    for (let i = 0; i < 10; i++) expect((await wrongToken(url, '127.0.0.8', `198.51.100.${i}`)).status).toBe(401);
    expect((await wrongToken(url, '127.0.0.8', '198.51.100.200')).status).toBe(429);
    expect((await wrongToken(url, '127.0.0.9', '127.0.0.8')).status).toBe(401);
    // The trusted proxy is believed when it names that address.
    expect((await wrongToken(url, PROXY, '127.0.0.8')).status).toBe(429);
  });

  it("the console's API-key sign-in throttle: per forwarded client", async () => {
    const url = await start({ trustProxy: [`${PROXY}/32`] });
    const signIn = (forwardedFor: string, apiKey: string) =>
      call(url, '/console/signin', {
        from: PROXY,
        forwardedFor,
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `apiKey=${apiKey}`,
      });
    for (let i = 0; i < 10; i++) expect((await signIn('198.51.100.7', `sk_sandbox_guess${i}`)).status).toBe(400);
    expect((await signIn('198.51.100.7', 'sk_sandbox_guess')).status).toBe(429);
    expect((await signIn('198.51.100.8', 'sk_sandbox_guess')).status).toBe(400);
  });
});

describe('GET /metrics in local mode answers a loopback client without the token: the client a proxy names, when trusted', () => {
  const metrics = (url: URL, from: string, forwardedFor?: string) =>
    call(url, '/metrics', { from, forwardedFor }).then((a) => a.status);

  it('behind a trusted proxy on this host, a remote client needs the token', async () => {
    const url = await start({ mode: 'local', trustProxy: [`${PROXY}/32`] });
    expect(await metrics(url, PROXY)).toBe(200);
    expect(await metrics(url, PROXY, '203.0.113.9')).toBe(403);
    expect(await metrics(url, PROXY, '127.0.0.1')).toBe(200);
  });

  it('from an untrusted address, or without the flag, the header is ignored', async () => {
    let url = await start({ mode: 'local', trustProxy: [`${PROXY}/32`] });
    expect(await metrics(url, '127.0.0.8', '203.0.113.9')).toBe(200);
    await server!.close(0);
    url = await start({ mode: 'local' });
    expect(await metrics(url, PROXY, '203.0.113.9')).toBe(200);
  });
});
