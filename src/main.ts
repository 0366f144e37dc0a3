import './production-env';
import 'reflect-metadata';
import type { Server } from 'node:http';
import { loadSettings, Settings, SettingsError } from './config/settings';
import { openDatabase, Database } from './db/database';
import { EmbeddedPostgresError } from './db/embedded-postgres';
import { createApp } from './app';
import { logger } from './logger';
import { createServices } from './services';
import { startDnsRole } from './primary/server';
import { startWorker } from './worker';

export interface RunningService {
  settings: Settings;
  database: Database;
  httpServer?: Server;
  httpPort?: number;
  /** the DNS primary's port (role dns) */
  dnsPort?: number;
  stop(): Promise<void>;
}

/** Starts the roles this process runs (ROLES): the HTTP API, the DNS primary and the propagation worker. */
export async function startService(settings: Settings): Promise<RunningService> {
  logger.level = settings.logLevel;
  const database = await openDatabase(settings, (line) => logger.info(line));
  const services = createServices(settings);
  const generated = await services.apiKeys.ensureAdminKey(database.orm.em, settings.apiKey);
  if (generated) {
    // printed once, on the first start; only its hash is stored
    process.stdout.write(`\nAdmin API key (shown once, store it now): ${generated}\n\n`);
  }
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop();
    await database.close();
  };
  let httpServer: Server | undefined;
  let httpPort: number | undefined;
  let dnsPort: number | undefined;
  try {
    if (settings.roles.includes('api')) {
      const app = await createApp(database.orm, services);
      const server = await new Promise<Server>((resolve, reject) => {
        const listening = app.express.listen(settings.port, settings.host, () => resolve(listening));
        listening.once('error', reject);
      });
      const address = server.address();
      httpServer = server;
      httpPort = typeof address === 'object' && address ? address.port : settings.port;
      logger.info(`HTTP API listening on ${settings.host}:${httpPort} (GraphQL /graphql, REST /api)`);
      stops.push(async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await app.apollo.stop();
      });
    }
    // the hidden primary and the propagation worker, each with its own pg pool
    if (settings.roles.includes('dns') && settings.dnsListen) {
      const primary = await startDnsRole(settings, database.clientUrl, logger);
      dnsPort = primary.port;
      stops.push(() => primary.stop());
    }
    if (settings.roles.includes('worker')) {
      const worker = await startWorker(settings, database.clientUrl, logger);
      stops.push(() => worker.stop());
    }
  } catch (error) {
    // a role that cannot start (a port in use, say) stops the ones already started: no half-running service
    await stopAll().catch(() => undefined);
    throw error;
  }
  return {
    settings,
    database,
    httpServer,
    httpPort,
    dnsPort,
    stop: stopAll,
  };
}

async function main(): Promise<void> {
  let settings: Settings;
  try {
    settings = loadSettings();
  } catch (error) {
    if (error instanceof SettingsError) {
      process.stderr.write(`zonekeeper: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  let service: RunningService;
  try {
    service = await startService(settings);
  } catch (error) {
    if (error instanceof EmbeddedPostgresError) {
      process.stderr.write(`zonekeeper: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal} received, stopping`);
    service.stop().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

if (require.main === module) {
  main().catch((error) => {
    logger.fatal({ err: error }, 'zonekeeper failed to start');
    process.stderr.write(`zonekeeper: failed to start: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
