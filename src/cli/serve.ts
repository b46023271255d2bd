import pino from 'pino';
import { ConfigError, loadConfig } from '../config.js';
import { createLogger } from '../logging/logger.js';
import { startServer } from '../server.js';
import { applySeeds } from './seed.js';

const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

const HELP = `usage: card-sandbox serve [options]   (each flag also reads the environment variable shown)

  --port N                  SANDBOX_PORT                 8080
  --host ADDR               SANDBOX_HOST                 127.0.0.1
  --db PATH|:memory:        SANDBOX_DB                   ./data/sandbox.db
  --mode local|hosted       SANDBOX_MODE                 local
  --admin-token T           SANDBOX_ADMIN_TOKEN          (required in hosted mode)
  --api-key K               SANDBOX_API_KEY
  --seed-balance D          SANDBOX_SEED_BALANCE         0
  --deposit-fee-rate R      SANDBOX_DEPOSIT_FEE_RATE     0.02
  --missing-key-status S    SANDBOX_MISSING_KEY_STATUS   401
  --allow-http-webhooks     SANDBOX_ALLOW_HTTP_WEBHOOKS  false
  --webhook-header-prefix P SANDBOX_WEBHOOK_HEADER_PREFIX Service
  --log-level L             SANDBOX_LOG_LEVEL            info
  --rate-limit N            SANDBOX_RATE_LIMIT           50 requests/s per key (hosted mode)
  --shutdown-grace S        SANDBOX_SHUTDOWN_GRACE       10 seconds
  --headers-timeout MS      SANDBOX_HEADERS_TIMEOUT_MS   hosted 10000, local 60000: to receive the headers
  --request-timeout MS      SANDBOX_REQUEST_TIMEOUT_MS   hosted 30000, local 300000: to receive a whole request
  --keep-alive-timeout MS   SANDBOX_KEEP_ALIVE_TIMEOUT_MS 5000: an idle connection is then closed
  --max-connections N       SANDBOX_MAX_CONNECTIONS      hosted 4096, local 0 (no cap): open connections at most
  --seed FILE               (repeatable) scenario files applied once listening

Hosted mode, its limits and why: docs/hosted.md
`;

/** `card-sandbox serve`: flags beat environment; prints the ready account's key once, on the run that made it. */
export async function runServe(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  let loaded;
  try {
    loaded = loadConfig(argv);
    const level = loaded.config.logLevel;
    if (level !== 'silent' && !(level in pino.levels.values)) {
      throw new ConfigError(`log level must be one of ${Object.keys(pino.levels.values).join(', ')}, silent`);
    }
  } catch (err) {
    if (err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`card-sandbox serve: ${(err as Error).message}\n`);
      return 2;
    }
    throw err;
  }
  const { config, seedFiles } = loaded;
  const logger = createLogger({ level: config.logLevel });
  // Node's default report of a crash prints the error raw on stderr; this one goes through the redaction.
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception');
    process.exit(1);
  });
  process.on('unhandledRejection', (err) => {
    logger.fatal({ err }, 'unhandled rejection');
    process.exit(1);
  });
  const server = await startServer({ config, logger });
  if (server.bootstrap?.newApiKey) {
    // Shown once on purpose (the README's quick start); only its keyed hash is stored. Written straight to
    // stdout, not through the logger, which would mask it.
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
  const stop = (signal: keyof typeof SIGNAL_EXIT) => {
    if (stopping) {
      // The operator insists: leave now. SQLite in WAL mode recovers on the next open.
      logger.warn({ signal }, 'second signal: exiting at once');
      process.exit(SIGNAL_EXIT[signal]);
    }
    stopping = true;
    logger.info({ signal, graceSeconds: config.shutdownGraceSeconds }, 'shutting down: finishing in-flight work');
    server.close(config.shutdownGraceSeconds * 1000).then(
      ({ cut }) => {
        if (cut)
          logger.warn({ graceSeconds: config.shutdownGraceSeconds }, 'grace period over: open requests were cut');
        logger.info({}, 'stopped: database checkpointed and closed');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return new Promise<number>(() => {});
}
