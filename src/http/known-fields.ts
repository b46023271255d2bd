import { invalidField } from '../domain/errors.js';
import type { Body } from './validate.js';

/**
 * Refuses a body field the endpoint does not take (behaviour.md section 12): a misspelt simulation parameter
 * must never be silently ignored.
 */
export function onlyKnownFields(body: Body, known: readonly string[]): void {
  for (const field of Object.keys(body)) {
    if (!known.includes(field)) {
      const allowed = known.length ? `it takes ${known.join(', ')}` : 'it takes no field';
      throw invalidField(`${field}: unknown field (${allowed})`);
    }
  }
}
