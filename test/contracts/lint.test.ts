import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Redocly's recommended ruleset finds no error and no warning in the document (contracts/redocly.yaml
// turns off two rules, each with its reason). Runs offline: the CLI is a dev dependency, telemetry off.

const ROOT = join(import.meta.dirname, '..', '..');

describe('Redocly lint of contracts/openapi.json', () => {
  it('reports no error and no warning under the recommended ruleset', () => {
    const cli = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    const r = spawnSync(
      process.execPath,
      [cli, 'lint', '--config', 'contracts/redocly.yaml', '--format', 'json', 'contracts/openapi.json'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      },
    );
    const report = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string }[];
    };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(r.status).toBe(0);
  }, 120_000);
});
