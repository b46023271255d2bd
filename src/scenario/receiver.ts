import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { signatureProblem } from './signature.js';

export interface Delivery {
  eventId: string | undefined;
  type: string | undefined;
  envelope: Record<string, unknown>;
  /** Why the delivery is wrong (signature, or headers not matching the body); undefined when it is right. */
  problem: string | undefined;
  answeredStatus: number;
}

/** One scenario file's inbox on the shared receiver: its own path, secret and scripted answers. */
export class Inbox {
  readonly deliveries: Delivery[] = [];
  /** Index of the first delivery no expectWebhook step has claimed yet. */
  claimed = new Set<number>();
  secret: string | undefined;
  private answer = { status: 200, times: Infinity };
  private waiters: (() => void)[] = [];

  constructor(readonly url: string) {}

  /** Answers the next `times` deliveries with `status` (then 200 again). */
  respondWith(status: number, times = Infinity): void {
    this.answer = { status, times };
  }

  nextStatus(): number {
    if (this.answer.times <= 0) this.answer = { status: 200, times: Infinity };
    this.answer.times -= 1;
    return this.answer.status;
  }

  record(d: Delivery): void {
    this.deliveries.push(d);
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves on the next delivery or after `ms`, whichever is first. */
  waitForDelivery(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/**
 * The built-in webhook receiver: node:http on an ephemeral port. Every delivery is verified against its inbox's
 * secret over the raw body bytes before anything parses it; an unverifiable one (or one whose Event-Id/Event-Type
 * headers disagree with its body) is recorded as such and fails the scenario.
 */
export class Receiver {
  private readonly inboxes = new Map<string, Inbox>();
  private server: Server | undefined;
  private base = '';

  async start(host = '127.0.0.1', listenHost = host): Promise<void> {
    this.server = createServer((req, res) => {
      void this.handle(req).then(
        (status) => res.writeHead(status, { 'Content-Type': 'application/json' }).end('{}'),
        () => res.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve) => this.server!.listen(0, listenHost, resolve));
    const { port } = this.server.address() as AddressInfo;
    this.base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  }

  /** A fresh inbox with an unguessable path. */
  inbox(): Inbox {
    const path = `/hooks/${randomBytes(9).toString('base64url')}`;
    const inbox = new Inbox(`${this.base}${path}`);
    this.inboxes.set(path, inbox);
    return inbox;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private async handle(req: IncomingMessage): Promise<number> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const inbox = this.inboxes.get((req.url ?? '').split('?')[0]);
    if (!inbox || req.method !== 'POST') return 404;
    const raw = Buffer.concat(chunks);
    // The header prefix is a server option (default "Service"), so any `<prefix>-Signature` is accepted.
    const header = (name: string) => {
      const key = Object.keys(req.headers).find((h) => h.endsWith(`-${name}`));
      const v = key ? req.headers[key] : undefined;
      return Array.isArray(v) ? v[0] : v;
    };
    const signatureError = inbox.secret
      ? signatureProblem(inbox.secret, header('signature'), raw)
      : 'no webhook secret known';
    let envelope: Record<string, unknown>;
    try {
      envelope = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      envelope = { unparsable: raw.toString('utf8').slice(0, 200) };
    }
    const eventId = header('event-id');
    const type = header('event-type');
    // The spec's delivery headers must describe the body they come with.
    const headerError =
      eventId !== envelope.id
        ? `Event-Id header ${JSON.stringify(eventId)} is not the envelope id ${JSON.stringify(envelope.id)}`
        : type !== envelope.type
          ? `Event-Type header ${JSON.stringify(type)} is not the envelope type ${JSON.stringify(envelope.type)}`
          : undefined;
    const answeredStatus = inbox.nextStatus();
    inbox.record({
      eventId,
      type: type ?? (envelope.type as string | undefined),
      envelope,
      problem: signatureError ?? headerError,
      answeredStatus,
    });
    return answeredStatus;
  }
}
