import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { conformance } from './conformance.js';
import { closeServer, listen } from './loopback.js';

interface Received {
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: { id: string; type: string; created: number; data: Record<string, unknown> };
}

/** How the receiver answers one request; the default acknowledges with 200. */
export type Behaviour = (req: IncomingMessage, res: ServerResponse) => void;

export const behaviours = {
  ok: ((_, res) => res.end('ok')) as Behaviour,
  status:
    (code: number): Behaviour =>
    (_, res) => {
      res.statusCode = code;
      res.end();
    },
  hang: ((_req, _res) => {}) as Behaviour,
  reset: ((req) => req.socket.destroy()) as Behaviour,
  redirect: ((_, res) => {
    res.writeHead(302, { Location: 'http://127.0.0.1:1/elsewhere' });
    res.end();
  }) as Behaviour,
  huge: ((_, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(Buffer.alloc(10 * 1024 * 1024, 'x'));
  }) as Behaviour,
};

/** A real HTTP receiver on a free loopback port, recording every request it gets. */
export interface Receiver {
  url: string;
  received: Received[];
  /** Answers the next requests in order; when the queue is empty, `fallback`. */
  queue: Behaviour[];
  fallback: Behaviour;
  /** Hold every delivered body to the event contract (off for tests that send synthetic bodies on purpose). */
  validate: boolean;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver = { received: [], queue: [], fallback: behaviours.ok, validate: true } as unknown as Receiver;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const body = JSON.parse(rawBody);
      // The delivered body (with its delivery-only fields, such as the 3DS code) is held to the event contract too.
      if (receiver.validate) conformance.event(body);
      receiver.received.push({ headers: req.headers, rawBody, body });
      (receiver.queue.shift() ?? receiver.fallback)(req, res);
    });
  });
  receiver.url = `${await listen(server)}/hooks`;
  receiver.close = () => closeServer(server);
  return receiver;
}
