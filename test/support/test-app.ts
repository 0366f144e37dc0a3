import 'reflect-metadata';
import request from 'supertest';
import { loadSettings, Settings } from '../../src/config/settings';
import { startService, RunningService } from '../../src/main';
import { createTestDatabase } from './test-db';

export const ADMIN_KEY = 'test-admin-key-0123456789abcdef';

export interface TestApp {
  service: RunningService;
  settings: Settings;
  baseUrl: string;
  http: ReturnType<typeof request>;
  /** POST /graphql with a key (the admin key unless another is given) */
  gql<T = any>(
    query: string,
    variables?: Record<string, unknown>,
    key?: string | null,
  ): Promise<{ status: number; data?: T; errors?: any[]; body: any }>;
  close(): Promise<void>;
}

/**
 * The real service (HTTP server, migrations, services) on a database of its own, as a user would start it. `env`:
 * settings of its own, or made from the database's URL (a setting that names the database again).
 */
export async function startTestApp(env: Record<string, string> | ((databaseUrl: string) => Record<string, string>) = {}): Promise<TestApp> {
  const database = await createTestDatabase({ migrated: true });
  const settings = loadSettings({
    DATABASE_URL: database.url,
    API_KEY: ADMIN_KEY,
    PORT: '0',
    HOST: '127.0.0.1',
    DNS_LISTEN: '',
    ROLES: 'api',
    // silent, unless TEST_LOG_LEVEL asks for the service's log (a failure's diagnosis)
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // no health checks against the real root servers from a test (test/integration/health-hierarchy.test.ts
    // sets its own hierarchy)
    HEALTH_CHECK_INTERVAL: '0',
    // CI runs the e2e suite once more with the fast paths off (FAST_PATHS=off in its environment)
    ...(process.env.FAST_PATHS ? { FAST_PATHS: process.env.FAST_PATHS } : {}),
    ...(typeof env === 'function' ? env(database.url) : env),
  });
  const service = await startService(settings);
  const baseUrl = `http://127.0.0.1:${service.httpPort}`;
  const http = request(baseUrl);
  return {
    service,
    settings,
    baseUrl,
    http,
    async gql(query, variables, key = ADMIN_KEY) {
      const req = http.post('/graphql').set('content-type', 'application/json');
      if (key !== null) req.set('X-API-Key', key);
      const res = await req.send({ query, variables });
      return { status: res.status, data: res.body?.data, errors: res.body?.errors, body: res.body };
    },
    async close() {
      // a close that hangs names the step it hangs in (the service's log is silent in tests)
      let step = 'the service to stop';
      const began = Date.now();
      const waiting = setInterval(
        () => console.warn(`test app: still waiting for ${step} after ${Math.round((Date.now() - began) / 1000)} s`),
        15_000,
      );
      try {
        await service.stop();
        step = 'its database to be dropped';
        await database.drop();
      } finally {
        clearInterval(waiting);
      }
    },
  };
}
