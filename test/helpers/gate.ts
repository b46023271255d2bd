import { createServer, type IncomingMessage, type Server } from 'node:http';

// A gate in front of a sandbox, for the tests of the clients that talk to one (replay, the scenario runner): it
// passes each request on as it came, unless the test answers it or holds it first, so a test stages a refusal or an
// interruption at the moment it chooses, with no test code in the server.

/** The gate's own answer to a request: a status and its JSON text, sent with `Retry-After: 1`. */
export type GateAnswer = [status: number, json: string];

/**
 * A gate to `target` (not yet listening): `decide` sees each request and answers it itself, or resolves undefined
 * to have it passed on (it may take its time: the request waits). A target that cannot be reached resets the
 * client's connection.
 */
export function gate(target: string, decide: (req: IncomingMessage) => Promise<GateAnswer | undefined>): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on(
      'end',
      () =>
        void (async () => {
          const own = await decide(req);
          if (own) return res.writeHead(own[0], { 'Content-Type': 'application/json', 'Retry-After': '1' }).end(own[1]);
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host') headers[k] = v;
          const body = Buffer.concat(chunks);
          const init = { method: req.method, headers, body: body.length > 0 ? body : undefined };
          const upstream = await fetch(target + req.url, init).catch(() => undefined);
          if (!upstream) return res.destroy();
          res.writeHead(upstream.status, {
            'Content-Type': upstream.headers.get('content-type') ?? 'application/json',
          });
          res.end(Buffer.from(await upstream.arrayBuffer()));
        })(),
    );
  });
}
