import { Redactor } from '../redaction/redactor.js';
import { isSecretName } from '../redaction/secret-names.js';

// What the proxy learns as traffic goes by. Pointed at production, the keys it relays need not look like ours
// (`sk_sandbox_...`), so every value it sees in a key header, and every value under a secret name in a body (an
// answer's `secret` or `apiKey`), is remembered and masked by value in every output after, whatever its shape.

/** Headers whose whole value is a credential; they are also the headers a recording leaves out. */
export const KEY_HEADERS = new Set(['x-api-key', 'authorization', 'proxy-authorization']);

const MAX_DEPTH = 32;
/**
 * Bounds on what is remembered, so a long run cannot grow without limit (the oldest go first). Credentials (key
 * headers, and the values given at the start) and what bodies carry are remembered apart: an answer with more than
 * 10,000 secret-named fields once pushed the relayed key out of a shared table, and it went on unmasked.
 */
const MAX_CREDENTIALS = 10_000;
const MAX_FROM_BODIES = 10_000;

export class SecretWatch {
  private credentials = new Set<string>();
  private fromBodies = new Set<string>();
  private current: Redactor;

  constructor(known: Iterable<string> = []) {
    this.current = new Redactor(known);
    this.learn(known, 'credentials');
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
    this.learn(found, 'credentials');
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
    this.learn(found, 'fromBodies');
  }

  private learn(values: Iterable<string>, into: 'credentials' | 'fromBodies'): void {
    const known = (v: string) => this.credentials.has(v) || this.fromBodies.has(v);
    const fresh = [...values].filter((v) => v.trim() !== '' && !known(v));
    if (fresh.length === 0) return;
    const bound = into === 'credentials' ? MAX_CREDENTIALS : MAX_FROM_BODIES;
    const set = this[into];
    for (const v of fresh) set.add(v);
    if (set.size > bound) this[into] = new Set([...set].slice(-bound));
    this.current = new Redactor([...this.credentials, ...this.fromBodies]);
  }
}
