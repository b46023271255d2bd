import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/decisions.md ("Behaviour where the spec is silent") is the decisions table. Each row names the tests that
// prove it; this test fails when a named file or title no longer exists, so a renamed or deleted test cannot leave
// the table pointing at nothing. Line numbers in failures are lines of that page.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TABLE = readFileSync(join(ROOT, 'docs', 'decisions.md'), 'utf8');
const REF = /^`(test\/[^`]+\.test\.ts)` › (.+)$/;

interface Row {
  line: number;
  decision: string;
  where: string;
  refs: string[];
}

function rows(): Row[] {
  const out: Row[] = [];
  TABLE.split('\n').forEach((text, i) => {
    if (!text.startsWith('|') || /^\|\s*-/.test(text) || /^\|\s*Decision\s*\|/.test(text)) return;
    const cells = text
      .slice(1, -1)
      .split(' | ')
      .map((c) => c.trim());
    out.push({
      line: i + 1,
      decision: cells[0] ?? '',
      where: cells[1] ?? '',
      refs: (cells[2] ?? '').split('<br>'),
    });
  });
  return out;
}

/** A title is a test's (or describe's) first argument: a string literal right after `(` and followed by `,`. */
function declaresTitle(source: string, title: string): boolean {
  const forms = [`'${title.replace(/'/g, "\\'")}'`, `"${title.replace(/"/g, '\\"')}"`, `\`${title}\``];
  return forms.some((literal) => {
    let at = source.indexOf(literal);
    while (at >= 0) {
      const before = source.slice(0, at).trimEnd();
      const after = source.slice(at + literal.length).trimStart();
      if (before.endsWith('(') && after.startsWith(',')) return true;
      at = source.indexOf(literal, at + 1);
    }
    return false;
  });
}

describe('docs/decisions.md decisions table: it can never rot', () => {
  const all = rows();

  it('has one row per decision in each section of the design note, and more', () => {
    const sections = TABLE.split('\n')
      .filter((l) => l.startsWith('## '))
      .map((l) => l.slice(3));
    expect(sections).toEqual([
      '1. Money',
      '2. Identities and formats',
      '3. Responses',
      '4. Accounts, auth, BINs',
      '5. Card lifecycle',
      '6. Card transactions',
      '7. Idempotency',
      '8. Webhooks',
      '9. Time',
      '10. The simulation API',
      '11. Finer points',
      'Beyond the design note',
    ]);
    expect(all.length).toBeGreaterThan(100);
  });

  it('every row has a decision, a place in the code and at least one test', () => {
    for (const row of all) {
      expect(row.decision, `line ${row.line}`).not.toBe('');
      expect(row.where, `line ${row.line}`).toMatch(/`(src|test)\//);
      expect(row.refs.length, `line ${row.line}`).toBeGreaterThan(0);
    }
  });

  it('every named test file exists and declares the named test title verbatim', () => {
    const problems: string[] = [];
    for (const row of all) {
      for (const ref of row.refs) {
        const m = REF.exec(ref.trim());
        if (!m) {
          problems.push(`line ${row.line}: not "\`test/file.test.ts\` › title": ${ref}`);
          continue;
        }
        const [, file, title] = m as unknown as [string, string, string];
        const path = join(ROOT, file);
        if (!existsSync(path)) problems.push(`line ${row.line}: no file ${file}`);
        else if (!declaresTitle(readFileSync(path, 'utf8'), title))
          problems.push(`line ${row.line}: no test "${title}" in ${file}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('every "Where" path exists', () => {
    const missing = all.flatMap((row) =>
      [...row.where.matchAll(/`((?:src|test)\/[^`]+)`/g)]
        .map((m) => m[1]!)
        .filter((p) => !existsSync(join(ROOT, p)))
        .map((p) => `line ${row.line}: ${p}`),
    );
    expect(missing).toEqual([]);
  });
});

/** Rows of the `## Decisions` table of a docs page: `| decision | test file > test title |` (`<br>` between tests). */
function pageRows(page: string): { line: number; refs: string[] }[] {
  const lines = readFileSync(join(ROOT, 'docs', page), 'utf8').split('\n');
  const start = lines.findIndex((l) => l === '## Decisions');
  if (start < 0) return [];
  const out: { line: number; refs: string[] }[] = [];
  for (let i = start + 1; i < lines.length && !lines[i]!.startsWith('## '); i++) {
    const text = lines[i]!;
    if (!text.startsWith('|') || /^\|\s*-/.test(text) || /^\|\s*decision\s*\|/i.test(text)) continue;
    const cells = text.slice(1, -1).split(' | ');
    out.push({ line: i + 1, refs: (cells[cells.length - 1] ?? '').split('<br>').map((r) => r.trim()) });
  }
  return out;
}

describe('the Decisions tables of the other docs pages: they cannot rot either', () => {
  const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'decisions.md');

  it('every named test file exists and declares the named test title verbatim', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const page of pages) {
      for (const row of pageRows(page)) {
        for (const ref of row.refs) {
          const m = /^`?(test\/[^`\s]+\.test\.ts)`? (?:>|›) (.+)$/.exec(ref);
          if (!m) {
            problems.push(`docs/${page}:${row.line}: not "test/file.test.ts > title": ${ref}`);
            continue;
          }
          const [, file, title] = m as unknown as [string, string, string];
          checked++;
          const path = join(ROOT, file);
          if (!existsSync(path)) problems.push(`docs/${page}:${row.line}: no file ${file}`);
          else if (!declaresTitle(readFileSync(path, 'utf8'), title))
            problems.push(`docs/${page}:${row.line}: no test "${title}" in ${file}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });
});
