import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SNAPSHOT_TIMERS } from '../../src/domain/snapshots/check.js';
import { sectionColumns } from '../../src/domain/snapshots/export.js';
import { ATTEMPT_JOB_KIND, fieldOf, NOT_IN_SNAPSHOT, SNAPSHOT_SECTIONS } from '../../src/domain/snapshots/format.js';
import { accountOwnedTables } from '../../src/store/account-purge.js';
import { createTestSandbox } from '../helpers/sandbox.js';

// The snapshot's schema (contracts/sandbox/snapshot/snapshot.json) and its list of sections follow the database:
// a table, a column or a kind of timer added later must be placed in a snapshot (with a new SNAPSHOT_VERSION) or
// left out of it on purpose, never dropped from a copy without anyone deciding it.

const schema = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../contracts/sandbox/snapshot/snapshot.json'), 'utf8'),
) as { properties: Record<string, { items?: RowSchema; anyOf?: RowSchema[] }> };
interface RowSchema {
  properties: Record<string, unknown>;
  required: string[];
  additionalProperties: boolean;
}

describe('the snapshot format follows the database', () => {
  const sb = createTestSandbox();
  afterAll(() => sb.close());

  it('places every table with an account_id column in the snapshot or leaves it out with a reason', async () => {
    const placed = [...SNAPSHOT_SECTIONS.map((s) => s.table), ...Object.keys(NOT_IN_SNAPSHOT)].sort();
    expect(placed).toEqual([...(await accountOwnedTables(sb.deps.db))].sort());
  });

  it.each(SNAPSHOT_SECTIONS.map((s) => [s.section, s] as const))(
    'the schema of %s lists exactly its table columns (camelCased or as the section names them, required, closed)',
    async (_section, spec) => {
      const property = schema.properties[spec.section]!;
      const row = property.items ?? property.anyOf!.find((s) => s.properties)!;
      const columns = (await sectionColumns(sb.deps, spec)).map((c) => fieldOf(spec, c));
      expect(Object.keys(row.properties)).toEqual(columns);
      expect(row.required).toEqual(columns);
      expect(row.additionalProperties).toBe(false);
    },
  );

  it('holds every kind of timer the server runs, but the webhook attempt (made again from pending deliveries)', () => {
    expect([...Object.keys(SNAPSHOT_TIMERS), ATTEMPT_JOB_KIND].sort()).toEqual(sb.deps.jobs.kindNames().sort());
    const kinds = (schema.properties.jobs!.items!.properties.kind as { enum: string[] }).enum;
    expect([...kinds].sort()).toEqual(Object.keys(SNAPSHOT_TIMERS).sort());
  });
});
