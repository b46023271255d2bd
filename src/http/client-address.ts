import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';

// Who the client of a request is, for every bound and throttle that counts per client (the failure throttles, the
// connection guard's per-client bound, the metrics' loopback check): the one place that says it. Behind a proxy or a
// load balancer every connection comes from the proxy's address, so the proxy's X-Forwarded-For names the client;
// but anyone can send that header, so it is read only on a connection from an address `--trust-proxy` names. There
// the client is the rightmost address of the header that is not trusted: each trusted proxy appends the address it
// was reached from, so what lies left of the last untrusted hop was written by the client itself and proves nothing.

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Constant (a member of the deps, built from `config.trustProxy`): the trusted proxies, and the client they name. */
export class ClientAddresses {
  private readonly ranges: [Address, number][];

  constructor(trustProxy: readonly string[]) {
    this.ranges = trustProxy.map((range) => ipaddr.parseCIDR(range));
  }

  /** Whether a connection from `address` is one of a trusted proxy's (whose X-Forwarded-For is believed). */
  trusts(address: string | undefined): boolean {
    if (this.ranges.length === 0 || address === undefined) return false;
    const parsed = parse(address);
    return parsed !== undefined && this.trusted(parsed);
  }

  /** The client of a request that came on a connection from `remote`, carrying `forwardedFor` (X-Forwarded-For). */
  resolve(remote: string, forwardedFor: string | string[] | undefined): string {
    if (this.ranges.length === 0 || forwardedFor === undefined) return remote;
    let client = parse(remote);
    if (client === undefined || !this.trusted(client)) return remote;
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = parse(withoutPort(hops[i]!.trim()));
      // Not an address (`unknown`, an obfuscated name): the trusted hop that passed it on is the client.
      if (hop === undefined) break;
      client = hop;
      if (!this.trusted(hop)) break;
    }
    return client.toString();
  }

  /** The client of the request in `c`; undefined for an in-process request (the console's own calls). */
  of(c: Context): string | undefined {
    const incoming = (c.env as { incoming?: IncomingLike } | undefined)?.incoming;
    if (!incoming?.socket) return undefined;
    const remote = incoming.socket.remoteAddress ?? 'unknown';
    return this.ranges.length === 0 ? remote : this.resolve(remote, incoming.headers?.['x-forwarded-for']);
  }

  private trusted(address: Address): boolean {
    return this.ranges.some(([range, bits]) => address.kind() === range.kind() && address.match(range, bits));
  }
}

interface IncomingLike {
  socket?: { remoteAddress?: string };
  headers?: Record<string, string | string[] | undefined>;
}

/** An address in its plain form (an IPv4-mapped IPv6 address as IPv4); undefined when the text is none. */
function parse(text: string): Address | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!ipaddr.IPv6.isValid(text)) return undefined;
  const v6 = ipaddr.IPv6.parse(text);
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
}

/** Some proxies write a hop with its port: `203.0.113.7:5123`, `[2001:db8::7]:5123`. */
function withoutPort(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) return bracketed[1]!;
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(hop);
  return v4 ? v4[1]! : hop;
}
