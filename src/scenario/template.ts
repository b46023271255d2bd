import { randomUUID } from 'node:crypto';

const WHOLE = /^\{\{\s*([A-Za-z_][\w.]*)\s*\}\}$/;
const ANY = /\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g;

export class TemplateError extends Error {}

/** `{{uuid}}` is fresh at each use; `{{now}}` is the wall time (ISO); everything else is a variable. */
function lookup(vars: Record<string, unknown>, name: string): unknown {
  if (name === 'uuid') return randomUUID();
  if (name === 'now') return new Date().toISOString();
  if (!(name in vars)) throw new TemplateError(`unknown variable {{${name}}}`);
  return vars[name];
}

/**
 * Substitutes `{{name}}` through strings, arrays and objects. A string that is exactly one placeholder takes the
 * variable's own value, so `amount: "{{amount}}"` stays a number.
 */
export function render(value: unknown, vars: Record<string, unknown>): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return lookup(vars, whole[1]);
    return value.replace(ANY, (_, name: string) => {
      const v = lookup(vars, name);
      return typeof v === 'string' ? v : JSON.stringify(v);
    });
  }
  if (Array.isArray(value)) return value.map((v) => render(v, vars));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, render(v, vars)]));
  }
  return value;
}

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };

/** `90`, `"90s"`, `"1h"`, `"7d"` as seconds. */
export function durationSeconds(d: number | string): number {
  if (typeof d === 'number') return d;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(d);
  if (!m) throw new TemplateError(`not a duration: ${JSON.stringify(d)}`);
  return Number(m[1]) * UNIT_SECONDS[m[2]];
}
