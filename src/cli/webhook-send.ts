import { readFile } from 'node:fs/promises';
import { signatureHeader } from '../webhooks/signature.js';
import { parseCommand, runGroup, usageError, type CommandSpec } from './args.js';
import { EVENT_TYPES, isEventType, sampleEvent } from './event-samples.js';

// `card-sandbox webhook send`: signs any body with the spec's scheme and POSTs it, so a partner can test a receiver
// with payloads the sandbox would not produce (a malformed event, an unknown type, an old timestamp).

const TIMEOUT_MS = 30_000;

export const WEBHOOK_SEND_SPEC = {
  command: 'card-sandbox webhook send',
  synopsis: '--url URL --secret whsec_... (--file FILE | --type EVENT_TYPE) [options]',
  summary:
    'Signs a body (t=<unix>,v1=<hex HMAC-SHA256 of "t.body">) and POSTs it with the Signature, Event-Id and Event-Type headers. Prints the receiver\'s status; exit 1 unless it is 2xx.',
  options: {
    url: { type: 'string', arg: 'URL', help: 'the receiver' },
    secret: { type: 'string', arg: 'whsec_...', help: 'the signing secret (env SANDBOX_WEBHOOK_SECRET)' },
    file: { type: 'string', arg: 'FILE', help: 'send this file byte for byte (any content, JSON or not)' },
    type: { type: 'string', arg: 'EVENT_TYPE', help: `send a sample event of this type: ${EVENT_TYPES.join(', ')}` },
    'header-prefix': {
      type: 'string',
      arg: 'PREFIX',
      help: 'header prefix (env SANDBOX_WEBHOOK_HEADER_PREFIX, default Service)',
    },
    timestamp: { type: 'string', arg: 'UNIX', help: 'sign with this t instead of now (to test the tolerance)' },
  },
  footer:
    'Event-Id and Event-Type come from the body\'s "id" and "type" (a random evt_ id and "unknown" when absent).\nexit codes: 0 the receiver answered 2xx, 1 another status, 2 usage, 3 the receiver is unreachable',
} as const satisfies CommandSpec;

/** `card-sandbox webhook`: one sub-command, `send`. */
export function runWebhookCommand(argv: string[]): Promise<number> {
  return runGroup(
    {
      command: 'card-sandbox webhook',
      summary: 'Webhook tools for testing a receiver.',
      subcommands: { send: { summary: 'sign a file or a sample event and POST it', run: runWebhookSend } },
    },
    argv,
  );
}

export async function runWebhookSend(argv: string[]): Promise<number> {
  const parsed = parseCommand(WEBHOOK_SEND_SPEC, argv);
  if (!parsed.ok) return parsed.exitCode;
  const { values } = parsed;
  const secret = values.secret ?? (process.env.SANDBOX_WEBHOOK_SECRET || undefined);
  const prefix = values['header-prefix'] ?? process.env.SANDBOX_WEBHOOK_HEADER_PREFIX ?? 'Service';
  const t = values.timestamp === undefined ? Math.floor(Date.now() / 1000) : Number(values.timestamp);
  const problem =
    !values.url || !/^https?:\/\//.test(values.url)
      ? '--url must be an http(s) URL'
      : !secret?.startsWith('whsec_')
        ? '--secret whsec_... (or SANDBOX_WEBHOOK_SECRET) is required'
        : (values.file === undefined) === (values.type === undefined)
          ? 'give exactly one of --file and --type'
          : values.type !== undefined && !isEventType(values.type)
            ? `--type must be one of ${EVENT_TYPES.join(', ')}`
            : !/^[A-Za-z][A-Za-z0-9-]*$/.test(prefix)
              ? '--header-prefix must be a header token'
              : !Number.isSafeInteger(t) || t < 0
                ? '--timestamp must be Unix seconds'
                : undefined;
  if (problem) return usageError(WEBHOOK_SEND_SPEC, problem).exitCode;
  let body: Buffer;
  if (values.file !== undefined) {
    try {
      body = await readFile(values.file);
    } catch (err) {
      process.stderr.write(
        `card-sandbox webhook send: cannot read ${values.file}: ${(err as NodeJS.ErrnoException).code}\n`,
      );
      return 2;
    }
  } else {
    body = Buffer.from(JSON.stringify(sampleEvent(values.type as (typeof EVENT_TYPES)[number], t)));
  }
  const { id, type } = idAndType(body);
  let res: Response;
  try {
    res = await fetch(values.url!, {
      method: 'POST',
      body,
      headers: {
        'Content-Type': 'application/json',
        [`${prefix}-Signature`]: signatureHeader(secret!, t, body),
        [`${prefix}-Event-Id`]: id,
        [`${prefix}-Event-Type`]: type,
      },
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    process.stderr.write(`card-sandbox webhook send: ${values.url} is unreachable: ${cause}\n`);
    return 3;
  }
  const text = (await res.text()).slice(0, 500);
  process.stdout.write(`${type} ${id} -> ${values.url} [${res.status}]${text ? `\n${text}` : ''}\n`);
  return res.ok ? 0 : 1;
}

/** The headers' values, read from the body when it is an event, else made up so the receiver still gets them. */
function idAndType(body: Buffer): { id: string; type: string } {
  let parsed: { id?: unknown; type?: unknown } = {};
  try {
    parsed = JSON.parse(body.toString('utf8')) ?? {};
  } catch {
    // Not JSON: a receiver test with a malformed body.
  }
  return {
    id: typeof parsed.id === 'string' ? parsed.id : sampleEvent('card.created').id,
    type: typeof parsed.type === 'string' ? parsed.type : 'unknown',
  };
}
