import ipaddr from 'ipaddr.js';

// How client addresses are grouped by the bounds that count per client: what one client holds is an IPv4 address
// or an IPv6 /64 (one host's, or one home's: a provider hands out a /64, and a client moves within it at will); what
// one network holds is an IPv4 /24 or an IPv6 /48 (one site's allocation).

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** The client an address belongs to: an IPv4 address as it is, an IPv6 address by its /64. */
export function clientOf(address: string): string {
  const ipv4 = asIpv4(address);
  if (ipv4 !== undefined) return ipv4;
  return ipv6Prefix(address, 8) ?? address;
}

/** The network an address belongs to: an IPv4 /24, an IPv6 /48. */
export function networkOf(address: string): string {
  const ipv4 = asIpv4(address);
  if (ipv4 !== undefined) return `${ipv4.slice(0, ipv4.lastIndexOf('.'))}.0/24`;
  return ipv6Prefix(address, 6) ?? address;
}

function asIpv4(address: string): string | undefined {
  if (!address.includes(':')) return address;
  return MAPPED_IPV4.exec(address)?.[1];
}

/** `2001:db8:1:2::/64` for the first `bytes` bytes of an IPv6 address; undefined when it is not one. */
function ipv6Prefix(address: string, bytes: 6 | 8): string | undefined {
  let parsed: ipaddr.IPv6;
  try {
    parsed = ipaddr.IPv6.parse(address.replace(/%.*$/, ''));
  } catch {
    return undefined;
  }
  const kept = parsed.toByteArray().map((b, i) => (i < bytes ? b : 0));
  return `${ipaddr.fromByteArray(kept).toString()}/${bytes * 8}`;
}
