import { spawn } from 'node:child_process';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { ConfigError, configSecrets, loadConfig, FLAGS } from '../config.js';
import { createLogger } from '../logging/logger.js';
import { Redactor } from '../redaction/redactor.js';
import { startServer } from '../server.js';
import { warmRequestValidators } from '../http/request-schema.js';
import { parseCommand, usageError, type CommandSpec } from './args.js';
import { reusedAccountHint } from './bootstrap-hint.js';
import { SnapshotFileError } from '../bootstrap.js';
import { newInstanceId } from '../http/instance.js';
import { StoreUnavailable } from '../store/seam.js';
import { SchemaTooNew } from '../store/db.js';

const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

/** How long after listening the request validators are compiled (server.ts warms tronweb as long after). */
const WARM_UP_AFTER_MS = 250;

export const SERVE_SPEC = {
  command: 'card-sandbox serve',
  synopsis: '[options]',
  summary:
    'Runs the sandbox server. Flags beat environment variables, which beat defaults. Hosted mode, its limits and why: docs/hosted.md.',
  options: FLAGS,
} as const satisfies CommandSpec;

/** `card-sandbox serve`: flags beat environment; prints the ready account's key once, on the run that made it. */
export async function runServe(argv: string[]): Promise<number> {
  const parsed = parseCommand(SERVE_SPEC, argv);
  if (!parsed.ok) return parsed.exitCode;
  let loaded;
  try {
    loaded = loadConfig(argv);
    const level = loaded.config.logLevel;
    if (level !== 'silent' && !(level in pino.levels.values)) {
      throw new ConfigError(`log level must be one of ${Object.keys(pino.levels.values).join(', ')}, silent`);
    }
  } catch (err) {
    if (err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      return usageError(SERVE_SPEC, (err as Error).message).exitCode;
    }
    throw err;
  }
  const { config, seedFiles } = loaded;
  const instance = newInstanceId();
  const logger = createLogger({ level: config.logLevel, redactor: new Redactor(configSecrets(config)), instance });
  // Node's default report of a crash prints the error raw on stderr; this one goes through the redaction.
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception');
    process.exit(1);
  });
  process.on('unhandledRejection', (err) => {
    logger.fatal({ err }, 'unhandled rejection');
    process.exit(1);
  });
  let server;
  try {
    server = await startServer({ config, logger, instance });
  } catch (err) {
    if (err instanceof StoreUnavailable || err instanceof SchemaTooNew) {
      // One line and exit status 2 (docs/scaling.md), no stack: what the operator must fix is outside (the database,
      // or the release run on it).
      process.stderr.write(`card-sandbox serve: ${err.message}\n`);
      return 2;
    }
    if (!(err instanceof SnapshotFileError)) throw err;
    process.stderr.write(`card-sandbox serve: --snapshot ${err.message}\n`);
    return 1;
  }
  // Before anything is announced: a supervisor that stops the server as soon as it reads a line must find the
  // handlers in place (on a busy machine the process can be descheduled right after writing that line).
  let stopping = false;
  const stop = async (signal: keyof typeof SIGNAL_EXIT) => {
    if (stopping) {
      // The operator insists: leave now. SQLite in WAL mode recovers on the next open.
      logger.warn({ signal }, 'second signal: exiting at once');
      process.exit(SIGNAL_EXIT[signal]);
    }
    stopping = true;
    logger.info({ signal, graceSeconds: config.shutdownGraceSeconds }, 'shutting down: finishing in-flight work');
    await server.close(config.shutdownGraceSeconds * 1000).then(
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
  // stop() logs what fails itself.
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  if (server.bootstrap?.newApiKey || server.bootstrap?.snapshot) {
    // Shown once on purpose (the README's quick start); only its HMAC is stored. Written straight to
    // stdout, not through the logger, which would mask it.
    const { accountId, newApiKey, snapshot } = server.bootstrap;
    process.stdout.write(
      `\nReady account ${accountId}${snapshot ? ` (from the snapshot ${config.snapshotFile})` : ''}\n` +
        (newApiKey ? `API key (shown once, keep it): ${newApiKey}\n` : '') +
        (snapshot?.webhookSecret ? `Webhook secret (shown once, keep it): ${snapshot.webhookSecret}\n` : '') +
        '\n',
    );
  }
  if (server.bootstrap?.reused) process.stdout.write(reusedAccountHint(server.bootstrap.accountId, server.url, config));
  if (seedFiles.length > 0) {
    const seeded = await applySeeds(seedFiles, server.url, {
      SEED_API_KEY: config.apiKey ?? server.bootstrap?.newApiKey ?? '',
      SEED_ADMIN_TOKEN: config.adminToken ?? '',
    });
    if (!seeded) {
      await server.close();
      return 1;
    }
  }
  const pages = { console: config.console ? `${server.url}/console` : 'off', docs: `${server.url}/docs` };
  // The store's own name of its database: a PostgreSQL URL without its password (`docker logs` keeps this line).
  logger.info(
    { url: server.url, ...pages, db: server.deps.store.where, mode: config.mode, connections: server.connections },
    'card sandbox listening',
  );

  // Off the start-up path, as the server's own warm-ups (server.ts): ajv is some 230 modules, loaded synchronously once
  // its import resolves, and a first /healthz arriving just then waited for all of them. A body checked before then
  // loads them itself.
  setTimeout(warmRequestValidators, WARM_UP_AFTER_MS).unref();
  return new Promise<number>(() => {});
}

/**
 * Runs seed-process.ts (the scenario runner, as a client) in a process of its own against this server, its output on
 * ours; true when every file applied.
 */
function applySeeds(files: string[], baseUrl: string, credentials: Record<string, string>): Promise<boolean> {
  // By way of its folder: this module may be a chunk of the bundled command (dist/src/chunks/), as deep as this one.
  const script = fileURLToPath(new URL(`../cli/seed-process${extname(import.meta.url)}`, import.meta.url));
  const child = spawn(process.execPath, [...process.execArgv, script, ...files], {
    env: { ...process.env, SEED_BASE_URL: baseUrl, ...credentials },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return new Promise((resolve) => {
    child.on('error', () => resolve(false));
    child.on('exit', (code) => resolve(code === 0));
  });
}
