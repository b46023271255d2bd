// The "did you mean" of the HTTP layer: an unknown path's nearest operation (nearest-operation.ts) and a misspelt
// body field's nearest known one (request-schema.ts).

/** Levenshtein distance, giving up (Infinity) once it must exceed `limit`. */
export function distance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return Infinity;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, row[j]!);
    }
    if (best > limit) return Infinity;
    prev = row;
  }
  return prev[b.length]!;
}
