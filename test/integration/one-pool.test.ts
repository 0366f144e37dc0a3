import 'reflect-metadata';
import { Client } from 'pg';
import request from 'supertest';
import { loadSettings } from '../../src/config/settings';
import { RunningService, startService } from '../../src/main';
import { freePort } from '../support/free-port';
import { ADMIN_KEY } from '../support/test-app';
import { createTestDatabase } from '../support/test-db';

/**
 * One process running every role (API with live updates, DNS primary, worker) holds one pool of
 * DATABASE_POOL_SIZE connections and one LISTEN connection, whatever it does: PostgreSQL's own list of
 * sessions (pg_stat_activity) is the witness, not the service's word. Concurrent writes beyond the pool's
 * size wait for a connection instead of opening more.
 */
const POOL_SIZE = 3;

let service: RunningService;
let observer: Client;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  const settings = loadSettings({
    DATABASE_URL: database.url,
    API_KEY: ADMIN_KEY,
    PORT: '0',
    HOST: '127.0.0.1',
    DNS_LISTEN: `127.0.0.1:${await freePort()}`,
    ROLES: 'api,dns,worker',
    LOG_LEVEL: 'silent',
    DATABASE_POOL_SIZE: String(POOL_SIZE),
  });
  service = await startService(settings);
  observer = new Client({ connectionString: database.url });
  await observer.connect();
}, 60_000);

afterAll(async () => {
  await observer?.end();
  await service?.stop();
  await drop?.();
});

/** the sessions on the service's database other than the observer's own */
async function sessions(): Promise<{ query: string }[]> {
  const { rows } = await observer.query(
    `select query from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`,
  );
  return rows;
}

test('every role of the process shares one pool and one LISTEN connection', async () => {
  const api = request(`http://127.0.0.1:${service.httpPort}`);
  const user = await api.post('/api/user/add').set('X-API-Key', ADMIN_KEY).send({ email: 'pool@example.org' });
  expect(user.status).toBeLessThan(300);
  const userId = user.body.data?.id ?? user.body.id;
  const zone = await api.post('/api/domain/add').set('X-API-Key', ADMIN_KEY).send({ user_id: userId, zone: 'pool.example' });
  expect(zone.status).toBeLessThan(300);
  // more writes at once than the pool has connections: they queue for one
  const writes = await Promise.all(
    Array.from({ length: 4 * POOL_SIZE }, (_, i) =>
      api
        .post('/api/record/add')
        .set('X-API-Key', ADMIN_KEY)
        .send({ zone: 'pool.example', owner: `host${i}`, rtype: 'A', rdata: `192.0.2.${i + 1}`, ttl: 3600 }),
    ),
  );
  expect(writes.map((w) => w.status).filter((status) => status >= 300)).toEqual([]);
  const now = await sessions();
  expect(now.length).toBeLessThanOrEqual(POOL_SIZE + 1);
  // the live updates' change feed and the worker listen on the same connection
  expect(now.filter((session) => /^\s*listen /i.test(session.query))).toHaveLength(1);
});
