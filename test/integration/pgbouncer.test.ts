import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { loadSettings } from '../../src/config/settings';
import { RunningService, startService } from '../../src/main';
import { ADMIN_KEY } from '../support/test-app';
import { createTestDatabase } from '../support/test-db';
import { freePort } from '../support/free-port';

/**
 * The service behind Debian's PgBouncer (1.18) in transaction pooling, which does not carry named prepared
 * statements from one transaction to the next: with DATABASE_PREPARED_STATEMENTS=off every write path works,
 * including concurrent changes of one zone (the optimistic path and its locked fallback) and the worker.
 */
describe('behind PgBouncer in transaction pooling', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-pgbouncer-'));
  let bouncer: ChildProcess;
  let service: RunningService;
  let dropDatabase: () => Promise<void>;
  let http: ReturnType<typeof request>;
  const gql = (query: string, variables?: Record<string, unknown>) =>
    http.post('/graphql').set('X-API-Key', ADMIN_KEY).set('content-type', 'application/json').send({ query, variables });

  beforeAll(async () => {
    const database = await createTestDatabase();
    dropDatabase = database.drop;
    const target = new URL(database.url);
    const port = await freePort();
    chmodSync(dir, 0o755);
    const password = decodeURIComponent(target.password);
    writeFileSync(
      path.join(dir, 'pgbouncer.ini'),
      [
        '[databases]',
        // the same name as the database behind it: the migrator looks the name up in pg_database
        `${target.pathname.slice(1)} = host=${target.hostname} port=${target.port || 5432} dbname=${target.pathname.slice(1)} user=${decodeURIComponent(target.username) || 'postgres'}${password ? ` password=${password}` : ''}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = any',
        'pool_mode = transaction',
        'max_client_conn = 200',
        'default_pool_size = 10',
        '',
      ].join('\n'),
      { mode: 0o644 },
    );
    // PgBouncer refuses to run as root; it drops to the postgres user
    const asRoot = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
    bouncer = spawn('pgbouncer', [...asRoot, path.join(dir, 'pgbouncer.ini')], {
      stdio: 'ignore',
      env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin` },
    });
    for (let waited = 0; ; waited += 100) {
      const open = await new Promise<boolean>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.end();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
      });
      if (open) break;
      if (waited > 10_000 || bouncer.exitCode !== null) throw new Error('pgbouncer did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const settings = loadSettings({
      DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}${target.pathname}`,
      DATABASE_PREPARED_STATEMENTS: 'off',
      API_KEY: ADMIN_KEY,
      PORT: '0',
      HOST: '127.0.0.1',
      DNS_LISTEN: `127.0.0.1:${await freePort()}`,
      ROLES: 'api,dns,worker',
      SERIAL_POLICY: 'increment',
      LOG_LEVEL: 'silent',
    });
    service = await startService(settings);
    http = request(`http://127.0.0.1:${service.httpPort}`);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    bouncer?.kill('SIGTERM');
    await dropDatabase?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates, changes, imports and deletes through REST and GraphQL, concurrently, with one serial step per change', async () => {
    const user = await http.post('/api/user/add').set('X-API-Key', ADMIN_KEY).send({ email: 'bouncer@example.org' });
    expect(user.status).toBe(201);
    const zone = await http.post('/api/domain/add').set('X-API-Key', ADMIN_KEY).send({ user_id: user.body.id, zone: 'bouncer.example' });
    expect(zone.status).toBe(201);
    const serialOf = async () =>
      (await gql('{ domains(name: "bouncer.example") { nodes { serial } } }')).body.data.domains.nodes[0].serial as number;
    const before = await serialOf();

    // 40 concurrent record changes of one zone, over different pooled server connections
    const adds = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        http
          .post('/api/record/add')
          .set('X-API-Key', ADMIN_KEY)
          .send({ zone: 'bouncer.example', owner: `h${i}`, rtype: 'A', rdata: `192.0.2.${i + 1}`, ttl: 3600 }),
      ),
    );
    expect(adds.map((res) => res.status)).toEqual(Array(40).fill(201));
    expect(await serialOf()).toBe(before + 40);

    const edited = await http
      .put(`/api/record/edit/${adds[0].body.id}`)
      .set('X-API-Key', ADMIN_KEY)
      .send({ zone: 'bouncer.example', owner: 'h0', rtype: 'A', rdata: '198.51.100.1', ttl: 3600 });
    expect(edited.status).toBe(200);
    expect((await http.delete(`/api/record/delete/${adds[1].body.id}`).set('X-API-Key', ADMIN_KEY)).status).toBe(204);
    const imported = await gql('mutation($text: String!) { importZone(zone: "bouncer.example", text: $text, mode: MERGE) { added } }', {
      text: '$ORIGIN bouncer.example.\nmail 3600 IN A 203.0.113.9\n@ 3600 IN MX 10 mail\n',
    });
    expect(imported.body.errors).toBeUndefined();
    // a zone rule still holds: a CNAME beside the A record is refused
    const conflict = await http
      .post('/api/record/add')
      .set('X-API-Key', ADMIN_KEY)
      .send({ zone: 'bouncer.example', owner: 'h2', rtype: 'CNAME', rdata: 'mail', ttl: 3600 });
    expect(conflict.status).toBe(409);

    const records = await http.get('/api/record/list').set('X-API-Key', ADMIN_KEY);
    expect(records.status).toBe(200);
    const rdata = records.body.map((r: { rdata: string }) => r.rdata);
    expect(rdata).toEqual(expect.arrayContaining(['198.51.100.1', '203.0.113.9']));
    expect(rdata).not.toContain('192.0.2.2');

    expect((await http.delete('/api/domain/delete').query({ zone: 'bouncer.example' }).set('X-API-Key', ADMIN_KEY)).status).toBe(204);
  }, 60_000);
});
