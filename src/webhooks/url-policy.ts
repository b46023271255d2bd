import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config.js';

// Which webhook URLs the sandbox accepts (docs/design.md section 8) and, in hosted mode, which addresses it will
// connect to: a hosted sandbox must not become a way into its own network, nor a way to reach addresses that are
// not one public host (broadcast, multicast, documentation, benchmarking, reserved ranges).

const MAX_URL_LENGTH = 2048;

/** The only range ipaddr.js gives a public unicast address; every named special-use range is refused. */
const PUBLIC = 'unicast';
// ::/96 is the deprecated IPv4-compatible form (::7f00:1 is 127.0.0.1), which ipaddr.js calls plain unicast.
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * The ipaddr.js range name of an IP literal ('unicast' for a public host), or 'invalid'. An IPv4-mapped address
 * (::ffff:a.b.c.d) is judged as the IPv4 address it is dialled as. Prefixes that embed an IPv4 address inside
 * another network (6to4, Teredo, NAT64, the translated ::ffff:0:0/96) keep their own range names and so are
 * refused whole: the embedded address could be anything, 127.0.0.1 included, and no receiver needs them.
 */
export function addressRange(address: string): string {
  const family = isIP(address);
  if (family === 0) return 'invalid';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range();
    if (v6.match(IPV4_COMPATIBLE) && v6.range() === PUBLIC) return 'ipv4Compatible';
  }
  return parsed.range();
}

/** Whether a hosted sandbox may connect to this IP literal: public unicast only (anything unparsable is refused). */
export function isPublicAddress(address: string): boolean {
  return addressRange(address) === PUBLIC;
}

/** `localhost`, 127.0.0.0/8 and ::1 (docs/design.md section 11). */
function isLoopbackHost(hostname: string): boolean {
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
 * it when any address is not public unicast (the sender checks again on the address it dials).
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
  const refused = addresses.find((a) => !isPublicAddress(a));
  if (refused !== undefined) {
    return `url must resolve to public unicast addresses only (${refused} is ${addressRange(refused)})`;
  }
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
