import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The configuration reference must not drift from the code: every flag and variable config.ts reads is documented.

const config = readFileSync(new URL('../../src/config.ts', import.meta.url), 'utf8');
const doc = readFileSync(new URL('../../docs/running.md', import.meta.url), 'utf8');

describe('docs/running.md configuration reference', () => {
  const envVars = [...new Set(config.match(/SANDBOX_[A-Z_]+/g))];
  const flagBlock = /const FLAGS = \{([\s\S]*?)\} as const/.exec(config)![1]!;
  const flags = [...flagBlock.matchAll(/^\s+'?([a-z-]+)'?: \{/gm)].map((m) => m[1]!);

  it('finds the flags and variables to check', () => {
    expect(envVars.length).toBeGreaterThan(10);
    expect(flags).toContain('shutdown-grace');
  });

  it.each(envVars)('documents the environment variable %s', (name) => {
    expect(doc).toContain('`' + name + '`');
  });

  it.each(flags)('documents the flag --%s', (name) => {
    expect(doc).toMatch(new RegExp('`--' + name + '[ `]'));
  });
});
