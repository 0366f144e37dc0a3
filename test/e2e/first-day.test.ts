import net from 'node:net';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait-for';
import { CREATE_RECORD, createUser, createUserKey, createZone, errorCode } from '../support/fixtures';

/**
 * What a new operator meets on the first day: /metrics kept to loopback unless the admin key comes,
 * the admin key's origin told truly, a frontend's natural nested query within the cost ceiling, the signer's
 * types refused with one code, and an import's warnings as the OpenAPI document describes them.
 */
let app: TestApp;
let userId: string;
let userKey: string;
beforeAll(async () => {
  // 192.0.2.0/24 (TEST-NET-1) leaves out 127.0.0.1, where this test's requests come from
  app = await startTestApp({ METRICS_ALLOW: '192.0.2.0/24' });
  userId = await createUser(app, 'tenant@first-day.test');
  userKey = await createUserKey(app, userId);
  for (const zone of ['a.first-day.test', 'b.first-day.test', 'c.first-day.test']) await createZone(app, userId, zone);
});
afterAll(async () => app?.close());

describe('/metrics from an address outside METRICS_ALLOW', () => {
  it('is 401 without a key, 403 with a user key, 200 with the admin key', async () => {
    const without = await app.http.get('/metrics');
    expect(without.status).toBe(401);
    expect(without.text).not.toContain('zonekeeper_');
    expect((await app.http.get('/metrics').set('X-API-Key', userKey)).status).toBe(403);
    const admin = await app.http.get('/metrics').set('X-API-Key', ADMIN_KEY);
    expect(admin.status).toBe(200);
    expect(admin.text).toContain('zonekeeper_http_request_duration_seconds');
  });
});

describe('the admin key says where it came from', () => {
  it('API_KEY_SETTING for the API_KEY setting, CREATED for a user key', async () => {
    const res = await app.gql('{ apiKeys { userId origin } }');
    expect(res.errors).toBeUndefined();
    expect(res.data.apiKeys).toEqual(
      expect.arrayContaining([
        { userId: null, origin: 'API_KEY_SETTING' },
        { userId, origin: 'CREATED' },
      ]),
    );
  });

  it('GENERATED_AT_FIRST_START for the key a first start without API_KEY printed', async () => {
    const write = process.stdout.write.bind(process.stdout);
    let printed = '';
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: any[]) => {
      printed += String(chunk);
      return write(chunk, ...rest);
    }) as typeof process.stdout.write;
    let fresh: TestApp | undefined;
    try {
      fresh = await startTestApp({ API_KEY: '' });
    } finally {
      process.stdout.write = write;
    }
    try {
      const generated = /Admin API key \(shown once, store it now\): (zk_admin_\S+)/.exec(printed)?.[1];
      expect(generated).toBeDefined();
      const res = await fresh.gql('{ apiKeys { userId origin } }', {}, generated);
      expect(res.data.apiKeys).toEqual([{ userId: null, origin: 'GENERATED_AT_FIRST_START' }]);
    } finally {
      await fresh.close();
    }
  });
});

describe('GraphQL cost of nested lists without `first`', () => {
  const NATURAL = `{ users(first: 10) { nodes { email domains { name records { id owner type rdata ttl } } } } }`;

  it("runs a frontend's natural tenant query on the default settings, costed at what the tenant holds", async () => {
    const res = await app.gql(NATURAL, {}, userKey);
    expect(res.errors).toBeUndefined();
    const [user] = res.data.users.nodes;
    expect(user.domains.map((d: { name: string }) => d.name)).toEqual(['a.first-day.test', 'b.first-day.test', 'c.first-day.test']);
    // SOA, two NS and the www CNAME of each new zone
    expect(user.domains[0].records.map((r: { type: string }) => r.type).sort()).toEqual(['CNAME', 'NS', 'NS', 'SOA']);
  });

  it('refuses what the ceiling does not hold, naming each list without `first` and the remedy', async () => {
    const res = await app.gql(NATURAL.replace('users(first: 10)', 'users(first: 10000)'), {}, userKey);
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('QUERY_TOO_COMPLEX');
    expect(res.errors![0].message).toMatch(
      /Its lists, counted per parent: users \(first: 10000\), User\.domains \(no first: counted as \d+\), Domain\.records \(no first: counted as \d+\); give User\.domains, Domain\.records `first`/,
    );
    expect(res.errors![0].extensions.details.slice(1)).toEqual([
      expect.objectContaining({ code: 'LIST_PAGE', list: 'users', items: 10000 }),
      expect.objectContaining({ code: 'LIST_WITHOUT_FIRST', list: 'User.domains' }),
      expect.objectContaining({ code: 'LIST_WITHOUT_FIRST', list: 'Domain.records' }),
    ]);
    // with `first` on both lists the same question is costed by its pages
    const paged = await app.gql(
      '{ users(first: 10) { nodes { domains(first: 20) { records(first: 100) { id owner type rdata ttl } } } } }',
      {},
      userKey,
    );
    expect(paged.errors).toBeUndefined();
  });
});

describe("the signer's record types", () => {
  it.each(['RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM', 'TYPE46'])(
    '%s is refused DNSSEC_RECORD_MANAGED through REST and GraphQL',
    async (type) => {
      const rest = await app.http
        .post('/api/record/add')
        .set('X-API-Key', ADMIN_KEY)
        .send({ zone: 'a.first-day.test', owner: 'x', rtype: type, rdata: 'anything', ttl: 3600 });
      expect(rest.status).toBe(409);
      expect(rest.body.details[0]).toMatchObject({ field: 'rtype', code: 'DNSSEC_RECORD_MANAGED' });
      const gql = await app.gql(CREATE_RECORD, { input: { zone: 'a.first-day.test', owner: 'x', type, rdata: 'anything', ttl: 3600 } });
      expect(errorCode(gql)).toBe('DNSSEC_RECORD_MANAGED');
    },
  );
});

describe("an import's warnings", () => {
  it('a warning about the zone as a whole has line null, as the OpenAPI document allows', async () => {
    const document = (await app.http.get('/api/openapi.json').set('X-API-Key', ADMIN_KEY)).body;
    const schema = document.paths['/api/domain/import/{zone}'].post.responses['200'].content['application/json'].schema;
    expect(schema.properties.warnings.items.properties.line.type).toEqual(['integer', 'null']);
    const res = await app.http
      .post('/api/domain/import/b.first-day.test')
      .set('X-API-Key', ADMIN_KEY)
      .send({ text: 'mx 3600 IN MX 10 missing\n', mode: 'MERGE', dry_run: 'true' });
    expect(res.status).toBe(200);
    expect(res.body.warnings).toContainEqual(expect.objectContaining({ line: null, code: 'TARGET_MISSING' }));
  });
});

describe('heavy requests take turns (HEAVY_REQUESTS_AT_ONCE)', () => {
  let one: TestApp;
  beforeAll(async () => {
    one = await startTestApp({ HEAVY_REQUESTS_AT_ONCE: '1' });
    await createZone(one, await createUser(one, 'heavy@first-day.test'), 'heavy.first-day.test');
  });
  afterAll(async () => one?.close());

  it('a zone-file operation waits while a large body holds the only turn; light requests do not', async () => {
    // a 100 KiB body, its first bytes sent: the turn is taken before the body is read
    const body = JSON.stringify({ query: '{ users { totalCount } }', padding: 'x'.repeat(100 * 1024) });
    const socket = net.connect(Number(new URL(one.baseUrl).port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
    });
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-API-Key: ${ADMIN_KEY}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 100)}`,
    );
    // a light round trip: the large request's headers (sent first, on their own connection) have been read
    expect((await one.gql('{ users { totalCount } }')).status).toBe(200);
    let exported: string | undefined;
    const exporting = one.gql('{ exportZone(zone: "heavy.first-day.test") }').then((res) => (exported = res.data?.exportZone));
    // light requests run meanwhile, several round trips of them
    for (let i = 0; i < 3; i++) expect((await one.gql('{ users { totalCount } }')).data.users.totalCount).toBe(1);
    expect(exported).toBeUndefined();
    socket.write(body.slice(100));
    await exporting;
    expect(exported).toContain('heavy.first-day.test.');
    await waitUntil('the large request to be answered', () => received.startsWith('HTTP/1.1 200'));
    socket.destroy();
  });
});
