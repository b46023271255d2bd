import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature } from '../webhooks/verify.js';
import { parseCommand, usageError, type CommandSpec } from './args.js';
import { CliFailure, SandboxClient } from './client.js';
import { showSecret } from './output.js';
import { readTarget, requireTarget, targetOptions } from './target-options.js';

// `card-sandbox listen`: a local webhook receiver for partners (like `stripe listen`): verifies each delivery with
// the exported verifier, prints it, optionally records it as JSON lines and forwards it to the partner's own app.

const MAX_BODY_BYTES = 1024 * 1024;
const FORWARD_TIMEOUT_MS = 10_000;

/** Contract check of an event envelope; returns the violations (empty when the event matches its schema). */
export type EventValidator = (envelope: unknown) => readonly unknown[];

export interface ListenOptions {
  /** A promise when the secret is learnt after the listener starts (it configures the webhook to point at itself). */
  secret: string | Promise<string>;
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
    handle(opts, req).then(
      ({ status, body }) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      },
      // A client that went away mid-request (or sent what cannot be read) ends its own exchange, nothing more.
      () => res.destroy(),
    );
  });
  // What node cannot parse is answered by node (400) or dropped; it never reaches a handler.
  server.on('clientError', (_err, socket) => socket.destroy());
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
    secret: await opts.secret,
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
    // Closed before the whole body (Content-Length: 100, 10 bytes, gone): no 'end' will come.
    req.on('close', () => {
      if (!req.complete) reject(new Error('the client closed the connection before the whole body'));
    });
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

export const LISTEN_SPEC = {
  command: 'card-sandbox listen',
  synopsis: '(--base-url URL --api-key KEY | --secret whsec_...) [--forward-to URL] [--port N] [options]',
  summary:
    "Receives, verifies and prints webhook deliveries. With --base-url and --api-key it points the account's webhook at itself and learns the secret; with --secret it only receives (you configure the webhook).",
  options: {
    ...targetOptions({
      baseUrl: 'the sandbox whose webhook to point here',
      apiKey: 'the account whose webhook to configure',
    }),
    secret: { type: 'string', arg: 'whsec_...', help: 'verify with this secret (env SANDBOX_WEBHOOK_SECRET)' },
    port: { type: 'string', arg: 'N', help: 'port to listen on, 0 for any free one (default 4242)' },
    host: { type: 'string', arg: 'HOST', help: 'address to listen on (default 127.0.0.1)' },
    'forward-to': {
      type: 'string',
      arg: 'URL',
      help: "forward each verified delivery unchanged (raw body, signature headers) to your app; its status is the listener's answer",
    },
    jsonl: { type: 'string', arg: 'FILE', help: 'append each verified event as a JSON line' },
    'header-prefix': {
      type: 'string',
      arg: 'PREFIX',
      help: 'webhook header prefix (env SANDBOX_WEBHOOK_HEADER_PREFIX, default Service)',
    },
    tolerance: { type: 'string', arg: 'SECONDS', help: 'largest accepted signature age (default 300)' },
  },
} as const satisfies CommandSpec;

/** `card-sandbox listen`: runs until interrupted. */
export async function runListen(argv: string[]): Promise<number> {
  const parsed = parseCommand(LISTEN_SPEC, argv);
  if (!parsed.ok) return parsed.exitCode;
  const { values } = parsed;
  const env = process.env;
  const given = values.secret ?? (env.SANDBOX_WEBHOOK_SECRET || undefined);
  const port = Number(values.port ?? '4242');
  const tolerance = Number(values.tolerance ?? '300');
  // With a base URL and no secret, the listener configures the webhook itself: then the key is required too.
  const configure = readTarget(values, env).baseUrl !== undefined && given === undefined;
  const target = configure ? requireTarget(values, env) : undefined;
  const problem =
    target && 'problem' in target
      ? target.problem
      : !configure && !given?.startsWith('whsec_')
        ? 'give --base-url and --api-key (the listener configures the webhook), or --secret whsec_...'
        : undefined;
  if (problem) return usageError(LISTEN_SPEC, problem).exitCode;
  if (!Number.isInteger(port) || port < 0 || port > 65535 || !(tolerance > 0)) {
    return usageError(LISTEN_SPEC, '--port and --tolerance are numbers').exitCode;
  }
  const out = (line: string) => process.stdout.write(line + '\n');
  // Loaded here, not at the top: the schemas cost nothing until a listener starts.
  const validate: EventValidator = (await import('../contracts/registry.js')).validateEvent;
  let learnt: (secret: string) => void = () => {};
  const secret = given ?? new Promise<string>((resolve) => (learnt = resolve));
  const listener = await startListener({
    secret,
    port,
    host: values.host ?? '127.0.0.1',
    headerPrefix: values['header-prefix'] ?? env.SANDBOX_WEBHOOK_HEADER_PREFIX ?? 'Service',
    toleranceSeconds: tolerance,
    forwardTo: values['forward-to'],
    jsonlFile: values.jsonl,
    validate,
    out,
  });
  const stop = () => void listener.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  if (target && 'baseUrl' in target) {
    try {
      learnt(await pointWebhookHere(new SandboxClient(target.baseUrl, target.apiKey), `${listener.url}/webhooks`, out));
    } catch (err) {
      await listener.close();
      if (err instanceof CliFailure) {
        process.stderr.write(`card-sandbox listen: ${err.message}\n`);
        return err.exitCode;
      }
      throw err;
    }
    out(`Ready: listening on ${listener.url}, the webhook of ${target.baseUrl} points here. Ctrl-C to stop.`);
  } else {
    // Only the secret's prefix is ever printed when the partner gave it (the API shows it too, as secretPrefix).
    showSecret(`Ready: listening on ${listener.url} (secret ${given!.slice(0, 14)}...). Ctrl-C to stop.`);
  }
  return new Promise<number>(() => {});
}

/**
 * Points the account's webhook at the listener and returns its secret: a first PUT answers it; an existing
 * configuration answers none, so the secret is rotated to learn one (said, since the old secret stops verifying).
 * The secret is printed once, for the partner's app behind --forward-to.
 */
async function pointWebhookHere(client: SandboxClient, url: string, out: (line: string) => void): Promise<string> {
  const put = await client.ok('PUT', '/v1/webhook', { url, enabled: true });
  let secret = typeof put.secret === 'string' ? put.secret : undefined;
  if (!secret) {
    const rotated = await client.post('/v1/webhook/rotate-secret');
    secret = typeof rotated.secret === 'string' ? rotated.secret : undefined;
    out(
      'The account already had a webhook: it now points here, and its secret was rotated to learn it (the previous secret no longer verifies).',
    );
  }
  if (!secret) throw new CliFailure('the sandbox answered no webhook secret', 1);
  showSecret(`Webhook secret (verify forwarded deliveries with it): ${secret}`);
  return secret;
}
