import type { Server } from 'node:http';
import express from 'express';
import type { Database } from '../db/pool';
import { databaseReachable } from '../db/availability';
import { ListenError } from '../listen-error';
import { metrics } from '../metrics';
import type { Services } from '../services';
import { createHttpServer } from './server';
import { metricsAccess } from './request-gates';

/**
 * METRICS_PORT: a process without the api role has no HTTP server, so what it counts (a collector's
 * zonekeeper_analytics_*, docs/analytics.md) could not be scraped. This serves the same registry at GET /metrics,
 * let in as the API's is (METRICS_ALLOW, else the admin key), and GET /health, on HOST; nothing else.
 */
export async function startMetricsServer(
  settings: { host: string; metricsPort: number },
  db: Database,
  services: Services,
): Promise<{ server: Server; port: number }> {
  const app = express();
  app.disable('x-powered-by');
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok', database: databaseReachable() ? 'reachable' : 'unreachable' });
  });
  app.get('/metrics', metricsAccess(db, services), async (_req, res) => {
    res.type(metrics.contentType).send(await metrics.metrics());
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = createHttpServer(app);
    listening.once('error', reject);
    listening.listen(settings.metricsPort, settings.host, () => resolve(listening));
  }).catch((error: NodeJS.ErrnoException) => {
    throw new ListenError('metrics (METRICS_PORT)', `${settings.host}:${settings.metricsPort}`, error);
  });
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : settings.metricsPort };
}
