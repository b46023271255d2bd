import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigError, FLAGS, loadConfig } from '../../src/config.js';

// docs/deploy/compose.yaml (the deployment docs/scaling.md describes) cannot run here: no Docker. What can drift
// silently is held here: it parses, each sandbox instance's command is one `serve` accepts, every SANDBOX_ variable
// it sets is one the configuration reads, the instances believe X-Forwarded-For from the balancer's network only, and
// the balancer spreads requests with no affinity while passing the client's address on.

const dir = new URL('../../docs/deploy/', import.meta.url);
const compose = parse(readFileSync(new URL('compose.yaml', dir), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    { image?: string; build?: unknown; command?: string[]; environment?: Record<string, string> }
  >;
  networks: Record<string, { ipam: { config: { subnet: string }[] } }>;
};
/** nginx.conf without its comments (which name what it does not do). */
const nginx = readFileSync(new URL('nginx.conf', dir), 'utf8').replace(/#.*$/gm, '');
const configSource = readFileSync(new URL('../../src/config.ts', import.meta.url), 'utf8');

const instances = Object.entries(compose.services).filter(([, s]) => s.command?.[0] === 'serve');

/** `${NAME:?message}` and `${NAME}` as a value the configuration accepts, as compose fills them in from the shell. */
const filled = (env: Record<string, string>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).map(([k, v]) => [k, v.replace(/\$\{[A-Z_]+(:\?[^}]*)?\}/g, 'a-long-enough-secret-value')]),
  );

describe('docs/deploy/compose.yaml', () => {
  it('runs several serve instances built from the Dockerfile, on PostgreSQL', () => {
    expect(instances.length).toBeGreaterThanOrEqual(2);
    for (const [, s] of instances) {
      expect(s.build).toMatchObject({ dockerfile: 'Dockerfile' });
      expect(s.environment?.SANDBOX_DB).toMatch(/^postgres:\/\//);
    }
  });

  it("gives each instance a command line and environment serve's configuration accepts", () => {
    const known = new Set(configSource.match(/SANDBOX_[A-Z0-9_]+/g));
    for (const [name, s] of instances) {
      const [, ...argv] = s.command!;
      for (const arg of argv.filter((a) => a.startsWith('--'))) {
        expect(Object.keys(FLAGS), `${name}: ${arg}`).toContain(arg.slice(2));
      }
      for (const variable of Object.keys(s.environment ?? {})) {
        if (variable.startsWith('SANDBOX_')) expect(known, `${name}: ${variable}`).toContain(variable);
        else expect(['PGPASSWORD', 'NODE_ENV'], `${name}: ${variable}`).toContain(variable);
      }
      // The image's own environment under the service's: loadConfig throws ConfigError on anything it refuses.
      const env = { SANDBOX_HOST: '0.0.0.0', SANDBOX_PORT: '8080', ...filled(s.environment ?? {}) };
      let config;
      try {
        config = loadConfig(argv, env).config;
      } catch (err) {
        if (err instanceof ConfigError) throw new Error(`${name}: ${err.message}`, { cause: err });
        throw err;
      }
      expect(config.dbPath).toMatch(/^postgres:\/\//);
      expect(config.mode).toBe('hosted');
      expect(config.trustProxy, name).toEqual(Object.values(compose.networks).map((n) => n.ipam.config[0]!.subnet));
    }
  });

  it('has the balancer forward to every instance, with X-Forwarded-For and no affinity', () => {
    for (const [name] of instances) expect(nginx).toMatch(new RegExp(`server ${name}:8080\\b`));
    expect(nginx).toMatch(/proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
    expect(nginx).not.toMatch(/\b(ip_hash|hash \$|sticky)\b/);
  });

  it('runs a PostgreSQL primary and a streaming standby of it', () => {
    const { primary, standby } = compose.services;
    expect(primary?.image).toMatch(/^postgres:/);
    expect(standby?.image).toMatch(/^postgres:/);
    expect(JSON.stringify(standby)).toMatch(/pg_basebackup -h primary .*-R/);
  });
});
