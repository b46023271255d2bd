import pino from 'pino';
import { ConfigError, loadConfig } from '../config.js';
import { startServer } from '../server.js';
import { applySeeds } from './seed.js';

/** `card-sandbox serve`: flags beat environment; prints the ready account's key once, on the run that made it. */
export async function runServe(argv: string[]): Promise<number> {
  let loaded;
  try {
    loaded = loadConfig(argv);
  } catch (err) {
    if (err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`card-sandbox serve: ${(err as Error).message}\n`);
      return 2;
    }
    throw err;
  }
  const { config, seedFiles } = loaded;
  const logger = pino({ level: config.logLevel });
  const server = await startServer({ config, logger });
  if (server.bootstrap?.newApiKey) {
    // Shown once on purpose (the README's quick start); only its keyed hash is stored.
    process.stdout.write(
      `\nReady account ${server.bootstrap.accountId}\nAPI key (shown once, keep it): ${server.bootstrap.newApiKey}\n\n`,
    );
  }
  if (seedFiles.length > 0) {
    const seeded = await applySeeds(seedFiles, server.url, config, server.bootstrap?.newApiKey);
    if (!seeded) {
      await server.close();
      return 1;
    }
  }
  logger.info({ url: server.url, db: config.dbPath, mode: config.mode }, 'card sandbox listening');
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'shutting down');
    void server.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return new Promise<number>(() => {});
}
