import './production-env';
import { sourceAddressOf } from './services/audit-log';
import 'reflect-metadata';
import type { Server } from 'node:http';
import { loadSettings, Settings, SettingsError } from './config/settings';
import { noteStopping } from './db/availability';
import { openDatabase, OpenDatabase } from './db/database';
import { EmbeddedPostgresError } from './db/embedded-postgres';
import { ListenError } from './listen-error';
import { createApp } from './app';
import { startSubscriptions } from './http/subscriptions';
import { createHttpServer } from './http/server';
import { logger, setLogLevel } from './logger';
import { createServices, Services } from './services';
import { rateLimitError } from './services/rate-limits';
import { startDnsRole } from './primary/server';
import { hearSecondaryRequests, relaySecondaryRequests } from './services/transfers/secondary-requests-relay';
import { startProber, startWorker } from './worker';
import { closeSigningPool } from './dns/dnssec/signing-pool';
import { startCollector, type QueryCollector } from './analytics/collector';
import { startMetricsServer } from './http/metrics-server';

/**
 * Stops accepting connections and lets the requests in flight finish; idle keep-alive connections close at
 * once, and whatever still runs after the grace period is cut.
 */
async function stopHttp(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const grace = setTimeout(() => {
    logger.warn(`requests still running after ${graceMs} ms: closing their connections`);
    server.closeAllConnections();
  }, graceMs);
  grace.unref();
  await closed;
  clearTimeout(grace);
}

export interface RunningService {
  settings: Settings;
  database: OpenDatabase;
  services: Services;
  httpServer?: Server;
  httpPort?: number;
  /** the DNS primary's port (role dns) */
  dnsPort?: number;
  /** the query analytics' dnstap collector (role collector) */
  collector?: QueryCollector;
  /** the port of /metrics and /health of a process without the api role (METRICS_PORT) */
  metricsPort?: number;
  stop(): Promise<void>;
}

/** Starts the roles this process runs (ROLES): the HTTP API, the DNS primary and the propagation worker. */
export async function startService(settings: Settings): Promise<RunningService> {
  setLogLevel(settings.logLevel);
  noteStopping(false);
  const database = await openDatabase(settings, (line) => logger.info(line));
  const services = createServices(settings, database.db);
  const generated = await services.apiKeys.ensureAdminKey(database.db, settings.apiKey);
  if (generated) {
    // printed once, on the first start; only its hash is stored
    process.stdout.write(`\nAdmin API key (shown once, store it now): ${generated}\n\n`);
  }
  // each role's stop, in the order of an orderly shutdown: HTTP (no new connections, in-flight requests
  // finish), the DNS primary, the worker (finishes the batch it claimed), then the pools and PostgreSQL
  const stops: { name: string; stop: () => Promise<void> }[] = [];
  // METRICS_PORT's server is stopped after the roles: what they count is scraped until they have stopped
  let metricsServer: Server | undefined;
  const stopAll = async () => {
    noteStopping();
    for (const { name, stop } of stops) {
      logger.info(`stopping ${name}`);
      // a stop that waits on something slow says so, so that an operator sees what holds the shutdown
      const began = Date.now();
      const waiting = setInterval(() => logger.warn(`still stopping ${name} after ${Math.round((Date.now() - began) / 1000)} s`), 10_000);
      waiting.unref();
      try {
        await stop();
      } finally {
        clearInterval(waiting);
      }
    }
    if (metricsServer) {
      logger.info('stopping the metrics server (METRICS_PORT)');
      await stopHttp(metricsServer, settings.shutdownGraceMs);
    }
    // failed authentications counted since the last flush of their summary
    await services.audit.failedAuthentications.stop().catch(() => undefined);
    await services.audit.refusals.stop().catch(() => undefined);
    // the DNSSEC signing threads, if a large zone was signed (an idle pool keeps nothing alive; this ends them)
    await closeSigningPool();
    logger.info('closing the database connections');
    await database.close();
  };
  let httpServer: Server | undefined;
  let httpPort: number | undefined;
  let dnsPort: number | undefined;
  let collector: QueryCollector | undefined;
  let metricsPort: number | undefined;
  try {
    // first: a busy port fails the start before any role has begun (settings refuse it with the api role)
    if (settings.analytics.metricsPort !== undefined) {
      const started = await startMetricsServer({ host: settings.host, metricsPort: settings.analytics.metricsPort }, database.db, services);
      metricsServer = started.server;
      metricsPort = started.port;
      logger.info(`metrics listening on ${settings.host}:${metricsPort} (GET /metrics, /health; METRICS_PORT)`);
    }
    if (settings.roles.includes('api')) {
      const app = await createApp(database.db, services, database.replicas);
      const server = await new Promise<Server>((resolve, reject) => {
        // the server's requests and responses have Express's prototypes from the start (src/http/server.ts)
        const listening = createHttpServer(app.express);
        listening.once('error', reject);
        listening.listen(settings.port, settings.host, () => resolve(listening));
      }).catch((error) => {
        throw new ListenError('HTTP API', `${settings.host}:${settings.port}`, error);
      });
      const address = server.address();
      httpServer = server;
      httpPort = typeof address === 'object' && address ? address.port : settings.port;
      logger.info(`HTTP API listening on ${settings.host}:${httpPort} (GraphQL /graphql, REST /api)`);
      // where a person opens the console: at `localhost` on a loopback address where passkeys are the way in (src/http/console.ts)
      const consoleOrigin =
        settings.sessions.publicOrigin ??
        `http://${/^(127\.|::1$|localhost$)/.test(settings.host) && !settings.oidc ? 'localhost' : settings.host.includes(':') ? `[${settings.host}]` : settings.host}:${httpPort}`;
      logger.info(`web console: ${consoleOrigin}/console/`);
      // subscriptions first: their connections would hold the HTTP server open
      // the same `trust proxy` as HTTP requests: a cookie's socket behind a TLS proxy is compared with the https origin
      const subscriptions = await startSubscriptions(server, app.schema, database.db, services, logger, app.express.get('trust proxy fn'));
      stops.push({ name: 'subscriptions (WebSocket connections close)', stop: () => subscriptions.stop() });
      stops.push({
        name: 'HTTP API (in-flight requests finish)',
        stop: () =>
          stopHttp(server, settings.shutdownGraceMs)
            .then(() => app.apollo.stop())
            .then(() => services.zoneFiles.close()),
      });
    }
    // the hidden primary and the propagation worker, on the same Database (one pool, one LISTEN connection)
    if (settings.roles.includes('dns') && settings.dnsListen) {
      // UPDATE (RFC 2136) goes through the services, like the API's change sets
      // each call is handed the database the message's work runs on (its failover wait capped: server.ts)
      const primary = await startDnsRole(
        settings,
        database.db,
        logger,
        {
          findKey: (db, name) => services.tsigKeys.findActive(db, name),
          admitUse: (db, found, address) =>
            services.tsigKeys.admitUse(
              db,
              { principal: found.principal, lastUsedAt: found.lastUsedAt ?? new Date() },
              sourceAddressOf(address),
            ),
          keyUsed: (db, principal, remote) => services.tsigKeys.noteUsed(db, principal, sourceAddressOf(remote)),
          authenticationFailed: (db, remote) => services.audit.failedAuthentications.note(db, sourceAddressOf(remote)),
          // a transfer refused by the key's policy: summarised with the UPDATEs and HTTP requests it refuses
          transferRefused: (db, principal, error, remote) => services.audit.refusals.note(db, principal, error, sourceAddressOf(remote)),
          apply: async (db, principal, request) => {
            // a signed UPDATE is limited as the key's user's API requests are (rate-limits.ts): REFUSED with the
            // reason (EDE) when over; and it takes its turn among the user's requests running in this process
            // (RATE_LIMIT_CONCURRENCY), HTTP's and graphql-ws's included
            try {
              const decision = await services.rateLimits.take(db, principal);
              if (decision && !decision.allowed) throw rateLimitError(decision, 'updates');
              return await services.rateLimits.inTurn(principal, 'requests', () => services.dnsUpdates.apply({ db, principal }, request));
            } catch (error) {
              // a policy, rate or quota refusal goes to the audit log's summary (the others are the client's mistakes)
              services.audit.refusals.note(db, principal, error);
              throw error;
            }
          },
        },
        services.secondaryRequests,
      );
      dnsPort = primary.port;
      stops.push({ name: 'DNS primary', stop: () => primary.stop() });
      // what the secondaries ask it, for the NOTIFY paces of the workers of other processes
      const stopRelay = relaySecondaryRequests(database.db, services.secondaryRequests);
      stops.push({ name: "relay of the secondaries' requests", stop: stopRelay });
    }
    if (settings.roles.includes('collector')) {
      const started = await startCollector(settings, database.db, logger);
      collector = started;
      stops.push({ name: 'dnstap collector (its counts are stored)', stop: () => started.stop() });
    }
    if (settings.roles.includes('worker')) {
      // the NOTIFY paces follow what the secondaries ask the primaries of other processes too
      const stopHearing = await hearSecondaryRequests(database.db, services.secondaryRequests);
      const worker = await startWorker(settings, database.db, logger, services);
      stops.push({ name: 'propagation worker (the refreshes under way finish)', stop: () => worker.stop().finally(stopHearing) });
    } else if (settings.roles.includes('prober')) {
      // the worker runs the prober among its duties; a process without it may run the prober alone
      const prober = await startProber(settings, database.db, logger, services);
      stops.push({ name: 'steering prober (the probes under way are stored)', stop: () => prober.stop() });
    }
  } catch (error) {
    // a role that cannot start (a port in use, say) stops the ones already started: no half-running service
    await stopAll().catch(() => undefined);
    throw error;
  }
  return {
    settings,
    database,
    services,
    httpServer,
    httpPort,
    dnsPort,
    collector,
    metricsPort,
    stop: stopAll,
  };
}

/** signals this close to the first one are the same signal, forwarded (see shutdown in main) */
const SAME_SIGNAL_WINDOW_MS = 1000;

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
  // the handlers come first: a signal during the start (PostgreSQL starting, migrations) waits for the
  // start to finish and then stops in order, instead of killing node and orphaning PostgreSQL
  const starting = startService(settings);
  let stoppingSince: number | undefined;
  const shutdown = (signal: string) => {
    if (stoppingSince !== undefined) {
      // npm and sh pass the terminal's Ctrl-C on to node, which also got it from the terminal: one keypress
      // arrives twice within milliseconds. A signal a second later is the operator's second one.
      if (Date.now() - stoppingSince < SAME_SIGNAL_WINDOW_MS) return;
      logger.warn(`${signal} received again: exiting now`);
      process.exit(1);
    }
    stoppingSince = Date.now();
    logger.info(`${signal} received: stopping (grace period ${settings.shutdownGraceMs} ms)`);
    starting
      .then((service) => service.stop())
      .then(
        () => {
          logger.info('stopped');
          process.exit(0);
        },
        (error) => {
          logger.error(`error while stopping: ${(error as Error).message}`);
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  try {
    await starting;
  } catch (error) {
    if (error instanceof EmbeddedPostgresError || error instanceof ListenError) {
      process.stderr.write(`zonekeeper: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

if (require.main === module) {
  main().catch((error) => {
    logger.fatal({ err: error }, 'zonekeeper failed to start');
    process.stderr.write(`zonekeeper: failed to start: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
