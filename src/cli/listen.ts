import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { verifyWebhookSignature } from '../webhooks/verify.js';

// `card-sandbox listen`: a local webhook receiver for partners (like `stripe listen`): verifies each delivery with
// the exported verifier, prints it, optionally records it as JSON lines and forwards it to the partner's own app.

const MAX_BODY_BYTES = 1024 * 1024;
const FORWARD_TIMEOUT_MS = 10_000;

/** Contract check of an event envelope; returns the violations (empty when the event matches its schema). */
export type EventValidator = (envelope: unknown) => readonly unknown[];

export interface ListenOptions {
  secret: string;
  port: number;
  host: string;
  headerPrefix: string;
  toleranceSeconds: number;
  forwardTo?: string;
  jsonlFile?: string;
  validate?: EventValidator;
  /** Unix seconds for the tolerance check; the system clock unless a test pins it. */
  now?: () => number;
  /** Where the human-readable lines go (stdout in the CLI). */
  out: (line: string) => void;
}

export interface Listener {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the receiver; every POST is verified, and a bad signature is answered 400 without going further. */
export async function startListener(opts: ListenOptions): Promise<Listener> {
  const server: Server = createServer((req, res) => {
    void handle(opts, req).then(({ status, body }) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port, opts.host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Answer = { status: number; body: Record<string, unknown> };

async function handle(opts: ListenOptions, req: IncomingMessage): Promise<Answer> {
  if (req.method !== 'POST') return { status: 405, body: { error: 'only POST is accepted' } };
  const rawBody = await readBody(req);
  if (!rawBody) return { status: 413, body: { error: `body larger than ${MAX_BODY_BYTES} bytes` } };
  const p = opts.headerPrefix.toLowerCase();
  const header = req.headers[`${p}-signature`];
  const check = verifyWebhookSignature({
    rawBody,
    header: Array.isArray(header) ? header[0] : header,
    secret: opts.secret,
    toleranceSeconds: opts.toleranceSeconds,
    now: opts.now?.(),
  });
  const receivedAt = new Date().toISOString();
  if (!check.ok) {
    opts.out(`${receivedAt}  ✗ rejected: ${check.reason} (event ${String(req.headers[`${p}-event-id`] ?? '?')})`);
    return { status: 400, body: { error: check.reason } };
  }
  let event: { id?: unknown; type?: unknown };
  try {
    event = JSON.parse(rawBody.toString('utf8'));
  } catch {
    opts.out(`${receivedAt}  ✗ signed body is not JSON`);
    return { status: 400, body: { error: 'body is not JSON' } };
  }
  const violations = opts.validate ? opts.validate(event) : [];
  let line = `${receivedAt}  ${String(event.type)}  ${String(event.id)}`;
  let answer: Answer = { status: 200, body: { received: true } };
  if (opts.forwardTo) {
    answer = await forward(opts.forwardTo, rawBody, req);
    line += `  -> ${opts.forwardTo} [${answer.status}]`;
  }
  opts.out(line);
  for (const v of violations) opts.out(`    ✗ contract: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  if (opts.jsonlFile) {
    appendFileSync(opts.jsonlFile, JSON.stringify({ receivedAt, verified: true, violations, event }) + '\n');
  }
  return answer;
}

/** The raw bytes, or undefined past the limit (a listener must not buffer without bound either). */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Forwards the same bytes and signature headers; the partner app's status becomes the listener's answer. */
async function forward(url: string, rawBody: Buffer, req: IncomingMessage): Promise<Answer> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  for (const [name, value] of Object.entries(req.headers)) {
    if (/-(signature|event-id|event-type)$/.test(name) && typeof value === 'string') headers[name] = value;
  }
  try {
    const res = await fetch(url, {
      method: 'POST',
      body: rawBody,
      headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await res.body?.cancel();
    return { status: res.status, body: { forwarded: res.status } };
  } catch (err) {
    return { status: 502, body: { error: `forward failed: ${(err as Error).message}` } };
  }
}

const USAGE = `usage: card-sandbox listen --secret whsec_... [--port 4242] [--host 127.0.0.1] [--forward-to URL]
                           [--jsonl FILE] [--header-prefix Service] [--tolerance 300]
`;

/** `card-sandbox listen`: runs until interrupted. */
export async function runListen(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        secret: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        'forward-to': { type: 'string' },
        jsonl: { type: 'string' },
        'header-prefix': { type: 'string' },
        tolerance: { type: 'string' },
      },
    }));
  } catch (err) {
    process.stderr.write(`card-sandbox listen: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const secret = values.secret ?? process.env.SANDBOX_WEBHOOK_SECRET;
  const port = Number(values.port ?? '4242');
  const tolerance = Number(values.tolerance ?? '300');
  if (!secret?.startsWith('whsec_') || !Number.isInteger(port) || port < 0 || port > 65535 || !(tolerance > 0)) {
    process.stderr.write(
      `card-sandbox listen: --secret whsec_... is required; --port and --tolerance are numbers\n${USAGE}`,
    );
    return 2;
  }
  // Loaded here, not at the top: the schemas cost nothing until a listener starts.
  const validate: EventValidator = (await import('../contracts/registry.js')).validateEvent;
  const listener = await startListener({
    secret,
    port,
    host: values.host ?? '127.0.0.1',
    headerPrefix: values['header-prefix'] ?? process.env.SANDBOX_WEBHOOK_HEADER_PREFIX ?? 'Service',
    toleranceSeconds: tolerance,
    forwardTo: values['forward-to'],
    jsonlFile: values.jsonl,
    validate,
    out: (line) => process.stdout.write(line + '\n'),
  });
  // Only the secret's prefix is ever printed.
  process.stdout.write(`Ready: listening on ${listener.url} (secret ${secret.slice(0, 14)}...). Ctrl-C to stop.\n`);
  const stop = () => void listener.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return new Promise<number>(() => {});
}
