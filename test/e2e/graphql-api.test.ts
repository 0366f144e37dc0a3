import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createUser, createUserKey, createZone, errorCode } from '../support/fixtures';

let app: TestApp;
let userId: string;

beforeAll(async () => {
  app = await startTestApp();
  userId = await createUser(app, 'owner@example.org');
  await createZone(app, userId, 'example.com');
});
afterAll(async () => {
  await app?.close();
});

describe('authentication', () => {
  it.each([
    ['no key', null],
    ['a wrong key', 'not-a-key'],
  ])('refuses %s with 401 UNAUTHENTICATED', async (_label, key) => {
    const res = await app.gql('{ users { totalCount } }', {}, key);
    expect(res.status).toBe(401);
    expect(errorCode(res)).toBe('UNAUTHENTICATED');
    expect(res.errors?.[0].message).toBe('Access denied');
  });

  it.each(['x-api-key', 'X-API-KEY', 'X-Api-Key', 'x-API-key'])('accepts the header spelled %s', async (header) => {
    const res = await app.http.post('/graphql').set(header, ADMIN_KEY).send({ query: '{ users { totalCount } }' });
    expect(res.status).toBe(200);
    expect(res.body.data.users.totalCount).toBeGreaterThanOrEqual(1);
  });

  it('leaves health and metrics open', async () => {
    expect((await app.http.get('/health')).status).toBe(200);
    const metrics = await app.http.get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('zonekeeper_http_request_duration_seconds');
  });
});

describe('users', () => {
  it('creates, finds (id, e-mail in any case), updates and deletes a user', async () => {
    const id = await createUser(app, 'Mixed.Case@Example.org');
    const byEmail = await app.gql(`{ user(email: "mixed.case@EXAMPLE.org") { id email } }`);
    expect(byEmail.data.user).toEqual({ id, email: 'Mixed.Case@Example.org' });
    const updated = await app.gql(`mutation($id: ID!) { updateUser(id: $id, input: {email: "new@example.org"}) { email } }`, { id });
    expect(updated.data.updateUser.email).toBe('new@example.org');
    const deleted = await app.gql(`mutation($id: ID!) { deleteUser(id: $id) }`, { id });
    expect(deleted.data.deleteUser).toBe(true);
    const gone = await app.gql(`query($id: ID!) { user(id: $id) { id } }`, { id });
    expect(errorCode(gone)).toBe('USER_NOT_FOUND');
  });

  it('refuses a duplicate e-mail regardless of letter case', async () => {
    const res = await app.gql(`mutation { createUser(input: {email: "OWNER@example.org"}) { id } }`);
    expect(errorCode(res)).toBe('DUPLICATE_EMAIL');
  });

  it('refuses a malformed e-mail naming the field', async () => {
    const res = await app.gql(`mutation { createUser(input: {email: "not-an-email"}) { id } }`);
    expect(errorCode(res)).toBe('INVALID_EMAIL');
    expect(res.errors?.[0].extensions.details[0].field).toBe('email');
  });

  it('refuses an id that is not a number', async () => {
    const res = await app.gql(`{ user(id: "abc") { id } }`);
    expect(errorCode(res)).toBe('INVALID_INPUT');
    expect(res.errors?.[0].extensions.details[0].field).toBe('id');
  });
});

describe('domains', () => {
  it('creates a zone with SOA, one NS per DEFAULT_NS and the www CNAME, normalising the name', async () => {
    const res = await app.gql(
      `mutation($u: ID!) { createDomain(input: {userId: $u, zone: "Default-Records.TEST."}) { name serial records { owner type rdata ttl } } }`,
      { u: userId },
    );
    expect(res.errors).toBeUndefined();
    const domain = res.data.createDomain;
    expect(domain.name).toBe('default-records.test');
    expect(domain.records).toEqual([
      { owner: '@', type: 'SOA', rdata: `ns1.example.net. hostmaster.example.net. ${domain.serial} 3600 1800 604800 86400`, ttl: 3600 },
      { owner: '@', type: 'NS', rdata: 'ns1.example.net.', ttl: 3600 },
      { owner: '@', type: 'NS', rdata: 'ns2.example.net.', ttl: 3600 },
      { owner: 'www', type: 'CNAME', rdata: 'default-records.test.', ttl: 3600 },
    ]);
  });

  it('converts an IDN zone name to punycode', async () => {
    const res = await app.gql(`mutation($u: ID!) { createDomain(input: {userId: $u, zone: "bücher.example"}) { name } }`, { u: userId });
    expect(res.data.createDomain.name).toBe('xn--bcher-kva.example');
  });

  it('refuses a duplicate zone (case and trailing dot ignored)', async () => {
    const res = await app.gql(`mutation($u: ID!) { createDomain(input: {userId: $u, zone: "EXAMPLE.com."}) { id } }`, { u: userId });
    expect(errorCode(res)).toBe('DUPLICATE_ZONE');
  });

  it('refuses a bad zone name with every problem listed', async () => {
    const res = await app.gql(`mutation($u: ID!) { createDomain(input: {userId: $u, zone: "bad..name"}) { id } }`, { u: userId });
    expect(errorCode(res)).toBe('INVALID_ZONE_NAME');
    expect(res.errors?.[0].extensions.details.length).toBeGreaterThanOrEqual(1);
  });

  it('refuses an unknown user', async () => {
    const res = await app.gql(`mutation { createDomain(input: {userId: "999999", zone: "orphan.test"}) { id } }`);
    expect(errorCode(res)).toBe('USER_NOT_FOUND');
  });

  it('finds zones by id, by name and by user; deletes a zone with all its records', async () => {
    const id = await createZone(app, userId, 'to-delete.test');
    const byName = await app.gql(`{ domain(name: "TO-DELETE.test.") { id } }`);
    expect(byName.data.domain.id).toBe(id);
    const byId = await app.gql(`query($id: ID!) { domain(id: $id) { name } }`, { id });
    expect(byId.data.domain.name).toBe('to-delete.test');
    const byUser = await app.gql(`query($u: ID!) { domains(userId: $u, first: 100) { nodes { name } totalCount } }`, { u: userId });
    expect(byUser.data.domains.nodes.map((d: { name: string }) => d.name)).toContain('to-delete.test');
    const del = await app.gql(`mutation { deleteDomain(zone: "to-delete.test") }`);
    expect(del.data.deleteDomain).toBe(true);
    const records = await app.gql(`{ records(zone: "to-delete.test") { totalCount } }`);
    expect(records.data.records.totalCount).toBe(0);
    const again = await app.gql(`mutation { deleteDomain(zone: "to-delete.test") }`);
    expect(errorCode(again)).toBe('ZONE_NOT_FOUND');
  });
});

describe('records', () => {
  const create = (input: Record<string, unknown>) => app.gql(CREATE_RECORD, { input: { zone: 'example.com', ttl: 3600, ...input } });

  it('stores the canonical form and raises the serial once per change', async () => {
    const before = (await app.gql(`{ domain(name: "example.com") { serial } }`)).data.domain.serial;
    const res = await create({ owner: 'Mail', type: 'mx', rdata: '10 Mail.Example.com.' });
    expect(res.errors).toBeUndefined();
    expect(res.data.createRecord).toMatchObject({ owner: 'mail', type: 'MX', rdata: '10 mail.example.com.', zone: 'example.com' });
    const after = await app.gql(`{ domain(name: "example.com") { serial records { type rdata } } }`);
    expect(after.data.domain.serial).toBe(before + 1);
    const soa = after.data.domain.records.find((r: { type: string }) => r.type === 'SOA');
    expect(soa.rdata.split(' ')[2]).toBe(String(before + 1));
  });

  it('refuses an identical record compared in canonical form', async () => {
    const res = await create({ owner: 'mail.example.com.', type: 'MX', rdata: '10 mail' });
    expect(errorCode(res)).toBe('DUPLICATE_RECORD');
    expect(res.errors?.[0].message).toBe('The record already exists');
  });

  it('refuses a CNAME beside other data, and other data beside a CNAME', async () => {
    expect(errorCode(await create({ owner: 'mail', type: 'CNAME', rdata: 'elsewhere.example.' }))).toBe('CNAME_CONFLICT');
    expect(errorCode(await create({ owner: 'www', type: 'A', rdata: '192.0.2.1' }))).toBe('CNAME_CONFLICT');
    expect(errorCode(await create({ owner: '@', type: 'CNAME', rdata: 'elsewhere.example.' }))).toBe('CNAME_CONFLICT');
  });

  it('takes any TTL of RFC 2181 §8 (ALLOWED_TTLS_BEYOND_REST by default), refuses one out of range, and a TTL different from its RRset', async () => {
    expect(errorCode(await create({ owner: 'ttl', type: 'A', rdata: '192.0.2.1', ttl: -1 }))).toBe('INVALID_TTL');
    expect((await create({ owner: 'ttl', type: 'A', rdata: '192.0.2.1', ttl: 3601 })).errors).toBeUndefined();
    expect(errorCode(await create({ owner: 'ttl', type: 'A', rdata: '192.0.2.2', ttl: 3600 }))).toBe('RRSET_TTL_MISMATCH');
  });

  it('reports every problem of a request at once', async () => {
    const res = await create({ owner: 'bad..owner', type: 'A', rdata: '999.1.1.1', ttl: -1 });
    expect(res.errors?.[0].extensions.code).toBe('INVALID_OWNER');
    const fields = res.errors?.[0].extensions.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['owner', 'rdata', 'ttl']));
  });

  it('names the record type in an RDATA error', async () => {
    const res = await create({ owner: 'x', type: 'AAAA', rdata: '1.2.3.4' });
    expect(errorCode(res)).toBe('INVALID_RDATA');
    expect(res.errors?.[0].message).toBe('Bad AAAA RDATA');
  });

  it('edits a record, refuses a no-op edit, deletes it', async () => {
    const created = await create({ owner: 'edit', type: 'TXT', rdata: 'hello' });
    const id = created.data.createRecord.id;
    const input = { zone: 'example.com', owner: 'edit', type: 'TXT', rdata: '"hello world"', ttl: 3600 };
    const edited = await app.gql(`mutation($id: ID!, $input: RecordInput!) { updateRecord(id: $id, input: $input) { rdata } }`, {
      id,
      input,
    });
    expect(edited.data.updateRecord.rdata).toBe('"hello world"');
    const noop = await app.gql(`mutation($id: ID!, $input: RecordInput!) { updateRecord(id: $id, input: $input) { rdata } }`, {
      id,
      input,
    });
    expect(errorCode(noop)).toBe('DUPLICATE_RECORD');
    const del = await app.gql(`mutation($id: ID!) { deleteRecord(id: $id) }`, { id });
    expect(del.data.deleteRecord).toBe(true);
    const gone = await app.gql(`query($id: ID!) { record(id: $id) { id } }`, { id });
    expect(errorCode(gone)).toBe('RECORD_NOT_FOUND');
  });

  it('keeps the SOA: no delete, no lower serial, a higher serial is taken as given', async () => {
    const soa = (await app.gql(`{ records(zone: "example.com", type: "SOA") { nodes { id rdata } } }`)).data.records.nodes[0];
    expect(errorCode(await app.gql(`mutation($id: ID!) { deleteRecord(id: $id) }`, { id: soa.id }))).toBe('SOA_UNDELETABLE');
    const fields = soa.rdata.split(' ');
    const edit = (serial: number) =>
      app.gql(`mutation($id: ID!, $input: RecordInput!) { updateRecord(id: $id, input: $input) { rdata } }`, {
        id: soa.id,
        input: {
          zone: 'example.com',
          owner: '@',
          type: 'SOA',
          ttl: 3600,
          rdata: [fields[0], fields[1], serial, 7200, 1800, 604800, 86400].join(' '),
        },
      });
    expect(errorCode(await edit(Number(fields[2])))).toBe('SOA_SERIAL_NOT_INCREASED');
    const raised = Number(fields[2]) + 10;
    const ok = await edit(raised);
    expect(ok.errors).toBeUndefined();
    expect((await app.gql(`{ domain(name: "example.com") { serial } }`)).data.domain.serial).toBe(raised);
  });

  it('refuses deleting the last NS at the apex', async () => {
    const zoneId = await createZone(app, userId, 'ns-guard.test');
    const ns = (await app.gql(`query($d: ID!) { records(domainId: $d, type: "NS") { nodes { id } } }`, { d: zoneId })).data.records.nodes;
    expect((await app.gql(`mutation($id: ID!) { deleteRecord(id: $id) }`, { id: ns[0].id })).errors).toBeUndefined();
    const last = await app.gql(`mutation($id: ID!) { deleteRecord(id: $id) }`, { id: ns[1].id });
    expect(last.errors?.[0].extensions.code).toBe('ZONE_RULE_VIOLATION');
  });

  it('pages with first/after and filters by zone, owner and type', async () => {
    const page1 = await app.gql(
      `{ records(zone: "example.com", first: 2) { nodes { id } pageInfo { hasNextPage endCursor } totalCount } }`,
    );
    expect(page1.data.records.nodes).toHaveLength(2);
    expect(page1.data.records.pageInfo.hasNextPage).toBe(true);
    const page2 = await app.gql(
      `query($after: String) { records(zone: "example.com", first: 1000, after: $after) { nodes { id } pageInfo { hasNextPage } } }`,
      {
        after: page1.data.records.pageInfo.endCursor,
      },
    );
    const ids = [...page1.data.records.nodes, ...page2.data.records.nodes].map((n: { id: string }) => Number(n.id));
    expect(ids.length).toBe(page1.data.records.totalCount);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    const ns = await app.gql(`{ records(zone: "example.com", owner: "@", type: "ns") { nodes { type owner } } }`);
    expect(ns.data.records.nodes.every((r: { type: string; owner: string }) => r.type === 'NS' && r.owner === '@')).toBe(true);
  });

  it('lists the record types and their fields', async () => {
    const res = await app.gql(`{ recordTypes { type code rfcs fields { name } } }`);
    const types = res.data.recordTypes.map((t: { type: string }) => t.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'A',
        'AAAA',
        'CAA',
        'CNAME',
        'DNAME',
        'DS',
        'HTTPS',
        'MX',
        'NAPTR',
        'NS',
        'PTR',
        'SOA',
        'SRV',
        'SSHFP',
        'SVCB',
        'TLSA',
        'TXT',
      ]),
    );
    expect(res.data.recordTypes.find((t: { type: string }) => t.type === 'MX').code).toBe(15);
  });
});

describe('limits', () => {
  it('refuses an operation nested deeper than the limit', async () => {
    const res = await app.gql(`{ records { nodes { domain { user { domains { records { domain { user { domains { name } } } } } } } } } }`);
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('QUERY_TOO_COMPLEX');
  });

  it('refuses an operation that would ask for too much', async () => {
    const res = await app.gql(`{ users(first: 10000) { nodes { domains { records { id owner type rdata ttl zone } } } } }`);
    expect(errorCode(res)).toBe('QUERY_TOO_COMPLEX');
  });

  it('refuses a page larger than MAX_PAGE_SIZE', async () => {
    const res = await app.gql(`{ records(first: 100000) { nodes { id } } }`);
    expect(['QUERY_TOO_COMPLEX', 'INVALID_INPUT']).toContain(errorCode(res));
  });
});

describe('per-user keys', () => {
  let aliceKey: string;
  let bobZoneRecordId: string;

  beforeAll(async () => {
    const alice = await createUser(app, 'alice@example.org');
    const bob = await createUser(app, 'bob@example.org');
    await createZone(app, alice, 'alice.test');
    await createZone(app, bob, 'bob.test');
    aliceKey = await createUserKey(app, alice);
    bobZoneRecordId = (await app.gql(`{ records(zone: "bob.test", type: "SOA") { nodes { id } } }`)).data.records.nodes[0].id;
  });

  it('sees only its own user, zones and records', async () => {
    const res = await app.gql(
      `{ users { nodes { email } } domains { nodes { name } } records(first: 1000) { nodes { zone } } }`,
      {},
      aliceKey,
    );
    expect(res.data.users.nodes).toEqual([{ email: 'alice@example.org' }]);
    expect(res.data.domains.nodes).toEqual([{ name: 'alice.test' }]);
    expect(new Set(res.data.records.nodes.map((r: { zone: string }) => r.zone))).toEqual(new Set(['alice.test']));
  });

  it("cannot read or change another user's zone: not found, nothing revealed", async () => {
    expect(errorCode(await app.gql(`{ domain(name: "bob.test") { id } }`, {}, aliceKey))).toBe('ZONE_NOT_FOUND');
    expect(
      errorCode(
        await app.gql(CREATE_RECORD, { input: { zone: 'bob.test', owner: 'x', type: 'A', rdata: '192.0.2.1', ttl: 3600 } }, aliceKey),
      ),
    ).toBe('ZONE_NOT_FOUND');
    expect(errorCode(await app.gql(`mutation($id: ID!) { deleteRecord(id: $id) }`, { id: bobZoneRecordId }, aliceKey))).toBe(
      'RECORD_NOT_FOUND',
    );
    expect(errorCode(await app.gql(`mutation { deleteDomain(zone: "bob.test") }`, {}, aliceKey))).toBe('ZONE_NOT_FOUND');
    expect(errorCode(await app.gql(`{ user(email: "bob@example.org") { id } }`, {}, aliceKey))).toBe('USER_NOT_FOUND');
  });

  it('changes its own zone, cannot create users', async () => {
    const res = await app.gql(
      CREATE_RECORD,
      { input: { zone: 'alice.test', owner: 'web', type: 'A', rdata: '192.0.2.7', ttl: 3600 } },
      aliceKey,
    );
    expect(res.errors).toBeUndefined();
    expect(errorCode(await app.gql(`mutation { createUser(input: {email: "eve@example.org"}) { id } }`, {}, aliceKey))).toBe('FORBIDDEN');
  });

  it('stops working once revoked, and its secret is never shown again', async () => {
    const carol = await createUser(app, 'carol@example.org');
    const created = await app.gql(`mutation($u: ID!) { createApiKey(input: {userId: $u, name: "ci"}) { secret apiKey { id } } }`, {
      u: carol,
    });
    const { secret, apiKey } = created.data.createApiKey;
    expect((await app.gql('{ users { totalCount } }', {}, secret)).status).toBe(200);
    const listed = await app.gql(`query($u: ID!) { apiKeys(userId: $u) { id name revokedAt } }`, { u: carol });
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    await app.gql(`mutation($id: ID!) { revokeApiKey(id: $id) { revokedAt } }`, { id: apiKey.id });
    expect((await app.gql('{ users { totalCount } }', {}, secret)).status).toBe(401);
  });
});

describe('serials never go back', () => {
  it('a zone deleted and created again starts above its last serial', async () => {
    await createZone(app, userId, 'reborn.test');
    for (let i = 0; i < 3; i++) {
      await app.gql(CREATE_RECORD, { input: { zone: 'reborn.test', owner: `h${i}`, type: 'A', rdata: `192.0.2.${i + 1}`, ttl: 3600 } });
    }
    const before = (await app.gql(`{ domain(name: "reborn.test") { serial } }`)).data.domain.serial;
    await app.gql(`mutation { deleteDomain(zone: "reborn.test") }`);
    await createZone(app, userId, 'reborn.test');
    const after = (await app.gql(`{ domain(name: "reborn.test") { serial } }`)).data.domain.serial;
    expect(after).toBeGreaterThan(before);
  });
});

describe('client mistakes in the request itself', () => {
  it.each([
    ['a variable of the wrong type', 'query($f: Int) { records(first: $f) { nodes { id } } }', { f: 'x' }],
    ['a field that does not exist', '{ records { nodes { colour } } }', {}],
    ['a syntax error', '{ records { nodes { id }', {}],
  ])('%s is a 4xx with a client code, not INTERNAL', async (_label, query, variables) => {
    const res = await app.gql(query, variables);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(['BAD_USER_INPUT', 'GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_PARSE_FAILED']).toContain(errorCode(res));
  });

  it('a nested first below 1 is refused', async () => {
    const res = await app.gql('{ domains { nodes { records(first: 0) { id } } } }');
    expect(errorCode(res)).toBe('INVALID_INPUT');
  });
});
