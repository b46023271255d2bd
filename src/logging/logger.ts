import pino from 'pino';
import { REDACTED, redactFields, scrubText } from './redaction.js';

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
  /** Where lines go; stdout by default (tests pass a capture). */
  destination?: pino.DestinationStream;
}

/** The server's structured JSON logger, with secrets censored by field name and masked by shape. */
export function createLogger({ level, destination }: LoggerOptions): pino.Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      formatters: { log: (record) => redactFields(record) as Record<string, unknown> },
      // redactFields already turned errors into plain objects (with their type); pino's own serializer would
      // call them "Object".
      serializers: { err: (err: unknown) => err },
      hooks: { streamWrite: scrubText },
    },
    destination ?? pino.destination({ dest: 1, sync: true }),
  );
}
