import type { JunitCase } from '../proxy/junit.js';
import type { Divergence } from './compare.js';
import type { Outcome } from './run.js';

// How a replay tells what it found: a readable block per divergence, a line per skipped exchange, value differences
// apart (they are not failures), a summary line; a JSON line per exchange for --report and a JUnit test case per
// exchange. Nothing here holds a wall time or the child's identity, so the same recording replayed against the same
// sandbox gives the same report.

const KIND: Record<Divergence['kind'], string> = {
  status: 'HTTP status',
  code: 'code',
  presence: 'field presence',
  type: 'JSON type',
  enum: 'enum value',
};

export function divergenceBlock(o: Outcome, d: Divergence): string {
  return [
    `DIVERGENCE #${o.seq} ${o.operation} (${KIND[d.kind]})`,
    `  at:       ${d.pointer}`,
    `  recorded: ${d.recorded}`,
    `  replayed: ${d.replayed}`,
    '',
  ].join('\n');
}

export function skippedLine(o: Outcome): string {
  return `SKIPPED #${o.seq} ${o.operation}: ${o.skipped}`;
}

export function valueLine(o: Outcome, v: Outcome['values'][number]): string {
  return `  #${o.seq} ${o.operation} ${v.pointer}: ${v.recorded} -> ${v.replayed}`;
}

export interface Totals {
  exchanges: number;
  compared: number;
  skipped: number;
  diverged: number;
  divergences: number;
  values: number;
}

/** The totals of a replay, counted as its outcomes come (none is kept: a recording may be millions of lines). */
export class Tally {
  readonly totals: Totals = { exchanges: 0, compared: 0, skipped: 0, diverged: 0, divergences: 0, values: 0 };

  add(o: Outcome): void {
    const t = this.totals;
    t.exchanges++;
    if (o.skipped !== undefined) {
      t.skipped++;
      return;
    }
    t.compared++;
    if (o.divergences.length > 0) t.diverged++;
    t.divergences += o.divergences.length;
    t.values += o.values.length;
  }
}

export function summaryLine(t: Totals): string {
  const s = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return (
    `replay: ${s(t.exchanges, 'exchange')}, ${t.compared} compared, ${t.skipped} skipped; ` +
    `${s(t.divergences, 'divergence')} in ${s(t.diverged, 'exchange')}; ${s(t.values, 'value difference')} (not failures)`
  );
}

/** One --report line: the exchange and everything found about it. */
export function reportLine(o: Outcome): string {
  return JSON.stringify({
    seq: o.seq,
    operation: o.operation,
    method: o.method,
    path: o.path,
    result: o.skipped !== undefined ? 'skipped' : o.divergences.length > 0 ? 'diverged' : 'same',
    recordedStatus: o.recordedStatus,
    replayedStatus: o.replayedStatus ?? null,
    ...(o.skipped !== undefined && { reason: o.skipped }),
    divergences: o.divergences,
    values: o.values,
    ...(o.note && { note: o.note }),
  });
}

export function outcomeCase(o: Outcome): JunitCase {
  return {
    classname: 'replay',
    name: `#${o.seq} ${o.operation}`,
    failures: o.divergences.map((d) => ({
      message: `${KIND[d.kind]} at ${d.pointer}: recorded ${d.recorded}, replayed ${d.replayed}`,
      text: divergenceBlock(o, d),
    })),
    skipped: o.skipped,
    output: o.values.length ? o.values.map((v) => valueLine(o, v).trim()).join('\n') : o.note,
  };
}
