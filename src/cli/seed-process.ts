import { applySeeds } from './seed.js';

// `serve --seed FILE...` runs this file as a process of its own, as any client of the server would be: the server's
// process loads none of the scenario runner, and the runner shares nothing with the server it drives. The files are
// the arguments; the server's URL and credentials come in the environment (never on a command line).

const env = process.env;
applySeeds(
  process.argv.slice(2),
  env.SEED_BASE_URL!,
  { apiKey: env.SEED_API_KEY || undefined, adminToken: env.SEED_ADMIN_TOKEN || undefined },
  undefined,
).then(
  (ok) => process.exit(ok ? 0 : 1),
  (err: unknown) => {
    process.stderr.write(`card-sandbox serve --seed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
