import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { REDACTED, Redactor } from '../redaction/redactor.js';
import { LineBatcher } from './line-batcher.js';
import { redactLine } from './log-writer.js';

// Belt and braces for the places a secret is most likely to be logged by a future change.
const REDACT_PATHS = [
  'headers["x-api-key"]',
  'headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'config.adminToken',
  'config.apiKey',
  'config.secret',
];

export interface LoggerOptions {
  level: string;
  /** Where lines go; stdout by default, through a worker thread (log-writer.ts); tests pass a capture. */
  destination?: pino.DestinationStream;
  /** Masks the server's own secrets (admin token, bootstrap key, server secret) by value, wherever they show up. */
  redactor?: Redactor;
  /** The process's instance id (http/instance.ts), on every line. */
  instance?: string;
}

/**
 * The server's structured JSON logger. Every line goes through the redaction twice (log-writer.ts, `redactLine`):
 * on its record (a field under a secret name censored, every string and long number redacted by value) and on its
 * final text (what a message or an error stack still holds). On stdout that happens on a worker thread, which also
 * writes the lines: the request thread only serialises the record. pino writes what the worker still holds when the
 * process exits, and after a `fatal` line. A given destination (a test's capture) gets its lines redacted in-thread
 * by the same function, as does stdout when the compiled worker is absent (running the TypeScript sources).
 */
export function createLogger({ level, destination, redactor = new Redactor(), instance }: LoggerOptions): pino.Logger {
  const worker = destination ? undefined : stdoutWorker(redactor);
  return pino(
    {
      level,
      base: instance ? { pid: process.pid, instance } : { pid: process.pid },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      // Errors and Headers become plain objects here, while they still are Errors: the line only has their JSON.
      formatters: { log: (record) => plainErrors(record) as Record<string, unknown> },
      // plainErrors already turned errors into plain objects (with their type); pino's own serializer would call
      // them "Object".
      serializers: { err: (err: unknown) => err },
      hooks: worker ? {} : { streamWrite: (line) => redactLine(redactor, line) },
    },
    worker ?? destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

/**
 * The transport that redacts and writes stdout's lines on a worker thread, when its compiled module is there; the
 * thread starts with the first line.
 */
function stdoutWorker(redactor: Redactor): pino.DestinationStream | undefined {
  // By way of its folder: this module may be a chunk of the bundled command (dist/src/chunks/), as deep as this one.
  const target = new URL('../logging/log-writer.js', import.meta.url);
  if (!existsSync(fileURLToPath(target))) return undefined;
  return new LineBatcher(() =>
    pino.transport({ target: target.href, options: { values: redactor.knownValues(), fd: 1 } }),
  );
}

const MAX_DEPTH = 8;

/**
 * A copy of a log record whose Errors and Headers are plain objects, so the redaction walks their fields too; a
 * record of plain values only (an access-log line) is returned as it is.
 */
function plainErrors(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth === 0 && isFlat(value)) return value;
  if (depth >= MAX_DEPTH) return '[Truncated]';
  if (Array.isArray(value)) return value.map((v) => plainErrors(v, depth + 1));
  if (value instanceof Error) {
    const plain: Record<string, unknown> = {
      type: value.constructor?.name ?? value.name,
      message: value.message,
      stack: value.stack,
    };
    for (const [k, v] of Object.entries(value)) plain[k] = v;
    if (value.cause !== undefined) plain.cause = value.cause;
    return plainErrors(plain, depth);
  }
  if (value instanceof Headers) return Object.fromEntries(value.entries());
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = plainErrors(v, depth + 1);
  return out;
}

/** Whether every field of a plain object is a string, number, boolean, null or undefined. */
function isFlat(value: object): boolean {
  if (Array.isArray(value) || value instanceof Error || value instanceof Headers) return false;
  for (const k in value) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== null && typeof v === 'object') return false;
  }
  return true;
}
