import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnsOf } from '../../src/store/schema.js';
import type { Db } from '../../src/store/seam.js';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

// docs/scaling.md, "Every table's tenant column": every table of the migrated schema is there with the column that
// names its tenant (its distribution column on Citus), or none and why. A migration that adds a table fails here until
// the doc says how it distributes; a column renamed or dropped fails too. Runs on both stores (test/store/ is in both
// projects): the two schemas have the same tables (schema-parity.test.ts), and each is read from its own catalogue.

const KINDS = ['distributed', 'reference', 'local'];

interface DocRow {
  table: string;
  column: string | undefined;
  kind: string;
}

/** The rows of the doc's table under the heading "Every table's tenant column". */
function docRows(): DocRow[] {
  const doc = readFileSync(new URL('../../docs/scaling.md', import.meta.url), 'utf8');
  const start = doc.indexOf("### Every table's tenant column");
  expect(start, 'docs/scaling.md has its section "Every table\'s tenant column"').toBeGreaterThan(0);
  const section = doc
    .slice(start)
    .split(/\n#{2,3} /)[0]!
    .slice(1);
  return section
    .split('\n')
    .filter((line) => /^\|\s*`/.test(line))
    .map((line) => {
      const [, table, column, kind] = line.split('|').map((cell) => cell.trim());
      return {
        table: table!.replace(/`/g, ''),
        // `name`, or — (no column: a reference or local table, or a tenant named otherwise, said in the notes).
        column: /^`(\w+)`$/.exec(column!)?.[1],
        kind: kind!,
      };
    });
}

/** Every table of the store's schema, by name. */
async function tablesOf(db: Db): Promise<string[]> {
  return db.dialect === 'postgres'
    ? db.column<string>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()
           AND table_type = 'BASE TABLE' ORDER BY table_name COLLATE "C"`,
      )
    : db.column<string>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      );
}

describe("docs/scaling.md names every table's tenant column", () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = createTestSandbox();
    await sb.deps.ready;
  });
  afterAll(() => sb.close());

  it('has a row for every table of the schema, and none for a table it does not have', async () => {
    const tables = await tablesOf(sb.deps.store);
    expect(tables.length).toBeGreaterThan(20);
    const documented = docRows().map((r) => r.table);
    expect(
      tables.filter((t) => !documented.includes(t)),
      'tables docs/scaling.md does not name',
    ).toEqual([]);
    expect(
      documented.filter((t) => !tables.includes(t)),
      'rows for tables the schema does not have',
    ).toEqual([]);
    expect(new Set(documented).size).toBe(documented.length);
  });

  it('names, for each table, a column the table has, and how it goes on Citus', async () => {
    for (const row of docRows()) {
      expect(KINDS, row.table).toContain(row.kind);
      const columns = await columnsOf(sb.deps.store, row.table);
      if (row.column !== undefined) expect(columns, row.table).toContain(row.column);
      // A table with an account_id is a tenant's: distributed, by its account or its tenant root.
      if (columns.includes('account_id')) {
        expect(row.kind, row.table).toBe('distributed');
        expect(['account_id', 'tenant_id'], row.table).toContain(row.column);
      }
    }
  });
});
