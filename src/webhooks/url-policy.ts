import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { Config } from '../config.js';

// Which webhook URLs the sandbox accepts (behaviour.md section 8) and, in hosted mode, which addresses it will
// connect to: a hosted sandbox must not become a way into its own network.

const MAX_URL_LENGTH = 2048;

/** Addresses a hosted sandbox refuses: loopback, private, link-local, CGNAT, unspecified, unique-local, NAT64. */
const INTERNAL = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  INTERNAL.addSubnet(net, prefix, 'ipv4');
}
// ::/96 holds ::, ::1 and the deprecated IPv4-compatible form (::7f00:1 is 127.0.0.1); NAT64 prefixes embed any
// IPv4 address, internal ones included, so a hosted sandbox refuses them whole.
INTERNAL.addSubnet('::', 96, 'ipv6');
INTERNAL.addSubnet('64:ff9b::', 96, 'ipv6');
INTERNAL.addSubnet('64:ff9b:1::', 48, 'ipv6');
INTERNAL.addSubnet('fc00::', 7, 'ipv6');
INTERNAL.addSubnet('fe80::', 10, 'ipv6');

/** Whether an IP literal is loopback, private or link-local (IPv4-mapped IPv6 judged as its IPv4). */
export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return INTERNAL.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return false;
  return INTERNAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** `localhost`, 127.0.0.0/8 and ::1 (behaviour.md section 11). */
export function isLoopbackHost(hostname: string): boolean {
  const h = bareHost(hostname).toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return h === '::1';
}

/** URL hostnames keep IPv6 literals in brackets. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * Checks a webhook URL; returns the reason it is refused, or undefined. Hosted mode resolves the host and refuses
 * it when any address is internal.
 */
export async function webhookUrlProblem(
  config: Pick<Config, 'mode' | 'allowHttpWebhooks'>,
  raw: string,
): Promise<string | undefined> {
  if (raw.length > MAX_URL_LENGTH) return `url must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute https:// URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'url must be an https:// URL';
  if (url.username || url.password) return 'url must not carry credentials';
  if (url.protocol === 'http:' && !config.allowHttpWebhooks && !isLoopbackHost(url.hostname)) {
    return 'url must be https:// (http:// is accepted only to a loopback host, or with allowHttpWebhooks)';
  }
  if (config.mode !== 'hosted') return undefined;
  const addresses = await resolveHost(url.hostname);
  if (addresses === undefined) return `url host ${url.hostname} does not resolve`;
  if (addresses.some(isInternalAddress)) return 'url must not resolve to a private, loopback or link-local address';
  return undefined;
}

async function resolveHost(hostname: string): Promise<string[] | undefined> {
  const host = bareHost(hostname);
  if (isIP(host)) return [host];
  try {
    return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return undefined;
  }
}
