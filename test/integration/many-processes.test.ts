import 'reflect-metadata';
import { Client } from 'pg';
import request from 'supertest';
import { loadSettings } from '../../src/config/settings';
import { RunningService, startService } from '../../src/main';
import { ADMIN_KEY } from '../support/test-app';
import { createTestDatabase } from '../support/test-db';

/**
 * Two instances of every role on one database, each with its own Database (pool and LISTEN connection, as
 * two processes would have): concurrent writes through both APIs keep every zone rule, raise the serial once per change, and
 * every journal row is published.
 */
describe('two processes per role on one database', () => {
  let services: RunningService[] = [];
  let databaseUrl: string;
  let drop: () => Promise<void>;
  let apis: ReturnType<typeof request>[];

  beforeAll(async () => {
    const database = await createTestDatabase();
    databaseUrl = database.url;
    drop = database.drop;
    const settings = loadSettings({
      DATABASE_URL: databaseUrl,
      API_KEY: ADMIN_KEY,
      PORT: '0',
      HOST: '127.0.0.1',
      DNS_LISTEN: '',
      ROLES: 'api,worker',
      SERIAL_POLICY: 'increment',
      LOG_LEVEL: 'silent',
    });
    // one after the other: the second start finds the migrations applied by the first
    services = [await startService(settings), await startService(settings)];
    apis = services.map((service) => request(`http://127.0.0.1:${service.httpPort}`));
  }, 60_000);

  afterAll(async () => {
    for (const service of services) await service.stop();
    await drop?.();
  });

  it('keeps the zone rules and one serial step per change under concurrent writes through both', async () => {
    const [a, b] = apis;
    const user = await a.post('/api/user/add').set('X-API-Key', ADMIN_KEY).send({ email: 'two@example.org' });
    expect(user.status).toBe(201);
    expect((await b.post('/api/domain/add').set('X-API-Key', ADMIN_KEY).send({ user_id: user.body.id, zone: 'two.example' })).status).toBe(
      201,
    );
    const serialOf = async () =>
      (await a.post('/graphql').set('X-API-Key', ADMIN_KEY).send({ query: '{ domains(name: "two.example") { nodes { serial } } }' })).body
        .data.domains.nodes[0].serial as number;
    const before = await serialOf();

    const add = (api: ReturnType<typeof request>, owner: string, rtype: string, rdata: string) =>
      api.post('/api/record/add').set('X-API-Key', ADMIN_KEY).send({ zone: 'two.example', owner, rtype, rdata, ttl: 3600 });
    // 20 owners: an A record through one process and a CNAME through the other, at the same moment
    const races = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        Promise.all([add(i % 2 ? a : b, `race${i}`, 'A', `192.0.2.${i + 1}`), add(i % 2 ? b : a, `race${i}`, 'CNAME', 'target.example.')]),
      ),
    );
    for (const [aRecord, cname] of races) {
      // CNAME exclusivity (RFC 1034 §3.6.2): exactly one of the two wins
      expect([aRecord.status, cname.status].sort()).toEqual([201, 409]);
    }
    // and 40 plain additions spread over both
    const plain = await Promise.all(Array.from({ length: 40 }, (_, i) => add(i % 2 ? a : b, `plain${i}`, 'TXT', `"n${i}"`)));
    expect(plain.map((res) => res.status)).toEqual(Array(40).fill(201));

    expect(await serialOf()).toBe(before + 20 + 40);

    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      let unpublished = -1;
      for (let waited = 0; waited < 10_000; waited += 100) {
        ({
          rows: [{ count: unpublished }],
        } = await client.query<{ count: number }>('select count(*)::int as count from changes where published_at is null'));
        if (unpublished === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(unpublished).toBe(0);
      // one journal row per committed change of the zone, serials without gaps or repeats
      const { rows } = await client.query<{ serial_after: string }>(
        "select serial_after from changes where zone = 'two.example' and serial_after > $1 order by id",
        [before],
      );
      expect(rows.map((row) => Number(row.serial_after))).toEqual(Array.from({ length: 60 }, (_, i) => before + i + 1));
    } finally {
      await client.end();
    }
  }, 60_000);
});
