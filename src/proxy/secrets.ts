import { Redactor } from '../redaction/redactor.js';
import { isSecretName } from '../redaction/secret-names.js';

// What the proxy learns as traffic goes by. Pointed at production, the keys it relays need not look like ours
// (`sk_sandbox_...`), so every value it sees in a key header, and every value under a secret name in a body (an
// answer's `secret` or `apiKey`), is remembered and masked by value in every output after, whatever its shape.

/** Headers whose whole value is a credential; they are also the headers a recording leaves out. */
export const KEY_HEADERS = new Set(['x-api-key', 'authorization', 'proxy-authorization']);

const MAX_DEPTH = 32;
/** A bound on what is remembered, so a long run cannot grow without limit (the oldest go first). */
const MAX_LEARNT = 10_000;

export class SecretWatch {
  private learnt = new Set<string>();
  private current: Redactor;

  constructor(known: Iterable<string> = []) {
    this.current = new Redactor(known);
    this.learn(known);
  }

  /** The redactor that masks everything learnt so far. */
  get redactor(): Redactor {
    return this.current;
  }

  /** Key header values (and a bearer token alone): node's raw alternating list of names and values. */
  learnHeaders(raw: readonly string[]): void {
    const found: string[] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      if (!KEY_HEADERS.has(name) && !isSecretName(name)) continue;
      const value = raw[i + 1]!;
      found.push(value);
      const scheme = /^\s*\S+\s+(\S+)\s*$/.exec(value);
      if (scheme) found.push(scheme[1]!);
    }
    this.learn(found);
  }

  /** Every string under a secret name (`secret`, `apiKey`, `token`, ...) anywhere in a parsed JSON body. */
  learnBody(body: unknown): void {
    const found: string[] = [];
    const walk = (value: unknown, depth: number) => {
      if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return;
      for (const [k, v] of Object.entries(value)) {
        if (typeof v === 'string' && isSecretName(k)) found.push(v);
        else walk(v, depth + 1);
      }
    };
    walk(body, 0);
    this.learn(found);
  }

  private learn(values: Iterable<string>): void {
    const fresh = [...values].filter((v) => v.trim() !== '' && !this.learnt.has(v));
    if (fresh.length === 0) return;
    for (const v of fresh) this.learnt.add(v);
    if (this.learnt.size > MAX_LEARNT) this.learnt = new Set([...this.learnt].slice(-MAX_LEARNT));
    this.current = new Redactor(this.learnt);
  }
}
