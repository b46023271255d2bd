import { consoleReport, fileErrorsReport } from '../scenario/report.js';
import { loadAll, runScenarios } from '../scenario/runner.js';

import type { Config } from '../config.js';

/**
 * Applies scenario files to the running server, in order, on a running clock. A file that declares `account` gets a
 * fresh account (needs the admin token; its key is printed once); the others act on the ready account
 * (SANDBOX_API_KEY, or the key this start just printed). Any failure stops the server.
 */
export async function applySeeds(
  files: string[],
  baseUrl: string,
  config: Pick<Config, 'apiKey' | 'adminToken'>,
  newApiKey: string | undefined,
): Promise<boolean> {
  const loaded = await loadAll(files);
  if (!loaded.ok) {
    process.stderr.write(`card-sandbox serve --seed:\n${fileErrorsReport(loaded.errors)}`);
    return false;
  }
  const started = performance.now();
  const results = await runScenarios(loaded.scenarios, {
    baseUrl,
    apiKey: config.apiKey ?? newApiKey,
    adminToken: config.adminToken,
    concurrency: 1,
    freezeClock: false,
    seeding: {
      onAccount(file, accountId, apiKey) {
        // Shown once, like every key; only its HMAC is stored.
        process.stdout.write(`Seeded account ${accountId} from ${file}\nAPI key (shown once, keep it): ${apiKey}\n`);
      },
    },
  });
  const ok = results.every((r) => r.ok);
  if (!ok) process.stderr.write(consoleReport(results, Math.round(performance.now() - started)));
  else process.stdout.write(`Applied ${results.length} seed file(s)\n`);
  return ok;
}
