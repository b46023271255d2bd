import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { RecordedExchange } from '../proxy/record.js';

// Reading a `proxy --record` file: one exchange a line, in the order the exchanges completed. Replay sends them in
// the order their requests arrived (`time`, then `seq`), which is the order the client made them.

export class RecordingError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function checked(value: unknown, line: number): RecordedExchange {
  const problem = (what: string) => new RecordingError(`line ${line}: ${what}`);
  if (!isObject(value)) throw problem('not a JSON object');
  for (const key of ['method', 'path', 'time'] as const) {
    if (typeof value[key] !== 'string') throw problem(`"${key}" must be a string`);
  }
  for (const key of ['seq', 'status'] as const) {
    if (typeof value[key] !== 'number') throw problem(`"${key}" must be a number`);
  }
  if (Number.isNaN(Date.parse(value.time as string))) throw problem('"time" is not a date-time');
  for (const key of ['request', 'response'] as const) {
    const m = value[key];
    if (!isObject(m) || !isObject(m.headers)) throw problem(`"${key}" must be {headers, body}`);
  }
  return value as unknown as RecordedExchange;
}

/** The recording's exchanges in request order; a line that is not an exchange is a RecordingError naming it. */
export async function readRecording(file: string): Promise<RecordedExchange[]> {
  const out: RecordedExchange[] = [];
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let n = 0;
  for await (const text of lines) {
    n++;
    if (text.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new RecordingError(`line ${n}: not JSON`);
    }
    out.push(checked(parsed, n));
  }
  return out.sort((a, b) => Date.parse(a.time) - Date.parse(b.time) || a.seq - b.seq);
}
