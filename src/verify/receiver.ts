import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

/** A local webhook receiver that keeps every delivery for the checks to inspect. */
export class Receiver {
  readonly deliveries: Delivery[] = [];
  private server: Server | undefined;
  private waiters: (() => void)[] = [];

  async start(host = '127.0.0.1'): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.deliveries.push({ headers: req.headers, raw: Buffer.concat(chunks) });
        res.writeHead(200).end();
        for (const w of this.waiters.splice(0)) w();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, host, resolve));
    return `http://${host}:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /** The first delivery matching `pick`, waiting up to `timeoutMs` of wall time for it to arrive. */
  async waitFor(pick: (d: Delivery) => boolean, timeoutMs: number): Promise<Delivery | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.deliveries.find(pick);
      if (found || Date.now() >= deadline) return found;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => (clearTimeout(t), resolve()));
      });
    }
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

/**
 * The spec's verifier, written from the spec alone (not the server's signing code): HMAC-SHA256 with the whole
 * secret as key, over `<t>.<raw body>`, hex in v1, constant-time comparison, timestamp within the tolerance.
 */
export function signatureProblem(header: string | undefined, raw: Buffer, secret: string, nowS: number): string | null {
  if (!header) return 'no signature header';
  const parts = new Map(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = parts.get('t');
  const v1 = parts.get('v1');
  if (!t || !/^\d+$/.test(t) || !v1 || !/^[0-9a-f]{64}$/.test(v1)) return `malformed signature header ${header}`;
  if (Math.abs(nowS - Number(t)) > 300) return `signature timestamp ${t} is outside the 300 s tolerance`;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(raw).digest();
  return timingSafeEqual(expected, Buffer.from(v1, 'hex')) ? null : 'the signature does not verify';
}

/** A header whose name ends with the given suffix, whatever the operator's prefix (`Service-Signature`, ...). */
export function headerEndingWith(headers: IncomingHttpHeaders, suffix: string): string | undefined {
  const name = Object.keys(headers).find((h) => h.endsWith(suffix.toLowerCase()));
  const value = name ? headers[name] : undefined;
  return Array.isArray(value) ? value[0] : value;
}
