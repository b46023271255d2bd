import { Writable } from 'node:stream';
import pino from 'pino';
import { Redactor } from '../redaction/redactor.js';

// The server log's second half, on a worker thread (a pino transport): the request thread serialises each record and
// hands the line over; here every line is redacted, on its structure and then on its text, exactly as the logger does
// in-thread (logger.ts, `redactLine`), and written to stdout synchronously, one write per chunk of lines received.
// Measured side by side (docs/speed.md): the request thread spent a fifth of a small read on its access-log line.

export interface LogWriterOptions {
  /** The server's own secrets, masked by value wherever they show up (the admin token, the ready key, ...). */
  values: string[];
  /** Where lines go (1: stdout). */
  fd: number;
}

/** The log line with every secret redacted: its record walked (names, values, long numbers), then its final text. */
export function redactLine(redactor: Redactor, line: string): string {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return redactor.text(line);
  }
  return redactor.text(JSON.stringify(redactor.value(record)));
}

/** pino's transport entry point: a stream of lines in, redacted lines out. */
export default function logWriter({ values, fd }: LogWriterOptions): Writable {
  const redactor = new Redactor(values);
  const out = pino.destination({ dest: fd, sync: true });
  let partial = '';
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop()!;
      let text = '';
      for (const line of lines) if (line !== '') text += redactLine(redactor, line) + '\n';
      if (text !== '') out.write(text);
      done();
    },
    final(done) {
      if (partial !== '') out.write(redactLine(redactor, partial) + '\n');
      done();
    },
  });
}
