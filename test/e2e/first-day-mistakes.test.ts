/**
 * The first day, again: each mistake a new user made is explained once, at the right place. A
 * `$TTL` outside ALLOWED_TTLS (the REST layer's) is one error with its lines and the remedy; REST writes carry the warnings
 * GraphQL gives (X-Zonekeeper-Warnings); unquoted long TXT text is split; a CNAME at the apex says so; an
 * import into a zone the key cannot see is ZONE_NOT_FOUND alone; a user cannot create a single-label zone;
 * an unknown CAA tag and a second SPF record are warned about.
 */
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey, createZone, CREATE_RECORD, errorCode } from '../support/fixtures';

let app: TestApp;
let aliceId: string;
let aliceKey: string;
const ZONE = 'alice.first-day.test';
const BOB_ZONE = 'bob.first-day.test';

beforeAll(async () => {
  app = await startTestApp();
  aliceId = await createUser(app, 'alice@first-day.test');
  const bob = await createUser(app, 'bob@first-day.test');
  aliceKey = await createUserKey(app, aliceId);
  await createZone(app, aliceId, ZONE);
  await createZone(app, bob, BOB_ZONE);
}, 60_000);

afterAll(async () => {
  await app?.close();
});

const IMPORT = `mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: MERGE, dryRun: true) { added } }`;
const headerWarnings = (res: { headers: Record<string, string> }): { field: string; code: string; message: string }[] =>
  res.headers['x-zonekeeper-warnings'] === undefined ? [] : JSON.parse(res.headers['x-zonekeeper-warnings']);
const gqlWarnings = (res: { body: any }): string[] => (res.body.extensions?.warnings ?? []).map((w: any) => w.code);

test('a $TTL outside ALLOWED_TTLS is one error with its lines, its count and the remedy (REST); GraphQL takes it', async () => {
  const records = Array.from({ length: 12 }, (_, i) => `host${i} IN A 192.0.2.${i + 1}`);
  const text = `$TTL 600\n${records.join('\n')}\n`;
  const rest = await app.http.post(`/api/domain/import/${ZONE}`).set('X-API-Key', aliceKey).send({ text, mode: 'MERGE' });
  expect(rest.status).toBe(422);
  expect(rest.body.error).toBe('INVALID_ZONE_FILE');
  expect(rest.body.details).toHaveLength(1);
  expect(rest.body.details[0]).toMatchObject({ field: 'ttl', code: 'TTL_NOT_ALLOWED', line: 2, count: 12 });
  expect(rest.body.details[0].message).toMatch(/^lines 2-13 \(12 lines\): ttl: 600 is not one of the allowed values .* \(ALLOWED_TTLS\)/);
  expect(rest.body.message).not.toMatch(/more problem/);
  for (const remedy of ['--clamp-ttls', 'ttlPolicy: CLAMP', 'ttl_policy=CLAMP']) expect(rest.body.message).toContain(remedy);

  // GraphQL's policy is ALLOWED_TTLS_BEYOND_REST, any TTL by default: the same file is taken there
  const gql = await app.gql(IMPORT, { z: ZONE, t: text }, aliceKey);
  expect(gql.errors).toBeUndefined();
  expect(gql.data.importZone.added).toBe(12);

  // problems that differ stay apart, each with its own line
  const mixed = await app.gql(
    IMPORT,
    { z: ZONE, t: `a IN A 192.0.2.1\nb 4294967296 IN A 192.0.2.2\nc 3600 IN A not-an-address\n` },
    aliceKey,
  );
  expect(mixed.errors![0].extensions.details.map((d: any) => [d.code, d.line, d.count])).toEqual([
    ['TTL_MISSING', 1, undefined],
    ['TTL_RANGE', 2, undefined],
    ['INVALID_IPV4', 3, undefined],
  ]);
});

test('REST writes answer their warnings in X-Zonekeeper-Warnings, the body as documented', async () => {
  const ns = await app.http
    .post('/api/record/add')
    .set('X-API-Key', aliceKey)
    .send({ zone: ZONE, owner: 'sub', rtype: 'NS', rdata: 'ns3.hoster.test', ttl: 3600 });
  expect(ns.status).toBe(201);
  expect(ns.body).toMatchObject({ owner: 'sub', type: 'NS', rdata: `ns3.hoster.test.${ZONE}.` });
  // a delegation to a name server named inside the zone that is not there: a warning (BIND loads such a zone,
  // saying so), where an apex NS of that kind is refused (NS_TARGET_NO_ADDRESS, as BIND refuses the zone)
  expect(headerWarnings(ns)).toEqual([expect.objectContaining({ code: 'TARGET_MISSING', field: 'rdata' })]);

  const mx = await app.http
    .post('/api/record/add')
    .set('X-API-Key', aliceKey)
    .send({ zone: ZONE, owner: '@', rtype: 'MX', rdata: '10 mail.hoster.test', ttl: 3600 });
  expect(mx.status).toBe(201);
  expect(headerWarnings(mx).map((w) => w.code)).toEqual(['TARGET_MISSING']);

  // an edit warns as a create does; a write with nothing to say has no header
  const edited = await app.http
    .put(`/api/record/edit/${mx.body.id}`)
    .set('X-API-Key', aliceKey)
    .send({ zone: ZONE, owner: '@', rtype: 'MX', rdata: '20 mail2.hoster.test', ttl: 3600 });
  expect(edited.status).toBe(200);
  expect(headerWarnings(edited).map((w) => w.code)).toEqual(['TARGET_MISSING']);
  const plain = await app.http
    .post('/api/record/add')
    .set('X-API-Key', aliceKey)
    .send({ zone: ZONE, owner: 'plain', rtype: 'A', rdata: '192.0.2.7', ttl: 3600 });
  expect(plain.status).toBe(201);
  expect(plain.headers['x-zonekeeper-warnings']).toBeUndefined();

  // the OpenAPI document describes the header on the writes
  const doc = await app.http.get('/api/openapi.json');
  expect(doc.body.paths['/api/record/add'].post.responses['201'].headers['X-Zonekeeper-Warnings']).toEqual({
    $ref: '#/components/headers/Warnings',
  });
});

test('unquoted TXT text over 255 octets is split with TXT_SPLIT; quoted, it is refused', async () => {
  const dkim = `v=DKIM1; k=rsa; p=${'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'.repeat(8)}`;
  const rest = await app.http
    .post('/api/record/add')
    .set('X-API-Key', aliceKey)
    .send({ zone: ZONE, owner: 'sel._domainkey', rtype: 'TXT', rdata: dkim, ttl: 3600 });
  expect(rest.status).toBe(201);
  expect(rest.body.rdata).toBe(`"${dkim.slice(0, 255)}" "${dkim.slice(255)}"`);
  expect(headerWarnings(rest).map((w) => w.code)).toEqual(['TXT_SPLIT']);

  const gql = await app.gql(
    CREATE_RECORD,
    { input: { zone: ZONE, owner: 'sel2._domainkey', type: 'TXT', rdata: dkim, ttl: 3600 } },
    aliceKey,
  );
  expect(gql.data.createRecord.rdata).toBe(`"${dkim.slice(0, 255)}" "${dkim.slice(255)}"`);
  expect(gqlWarnings(gql)).toEqual(['TXT_SPLIT']);

  // a change set says it too
  const changes = await app.http
    .post(`/api/domain/changes/${ZONE}`)
    .set('X-API-Key', aliceKey)
    .send({ changes: [{ kind: 'ADD', owner: 'sel4._domainkey', type: 'TXT', rdata: dkim, ttl: 3600 }] });
  expect(changes.status).toBe(200);
  expect(headerWarnings(changes)).toEqual([expect.objectContaining({ field: 'changes[0].rdata', code: 'TXT_SPLIT' })]);

  const quoted = await app.http
    .post('/api/record/add')
    .set('X-API-Key', aliceKey)
    .send({ zone: ZONE, owner: 'sel3._domainkey', rtype: 'TXT', rdata: `"${dkim}"`, ttl: 3600 });
  expect(quoted.status).toBe(422);
  expect(quoted.body.details[0]).toMatchObject({ field: 'rdata', code: 'TXT_STRING_TOO_LONG' });
});

test('a CNAME at the apex says that the apex cannot be an alias (REST and GraphQL)', async () => {
  const rest = await app.http
    .post('/api/record/add')
    .set('X-API-Key', aliceKey)
    .send({ zone: ZONE, owner: '@', rtype: 'CNAME', rdata: 'elsewhere.example.net.', ttl: 3600 });
  expect(rest.status).toBe(409);
  expect(rest.body.error).toBe('CNAME_CONFLICT');
  expect(rest.body.message).toMatch(/a CNAME cannot be at the apex of alice\.first-day\.test.*RFC 1034 §3\.6\.2/);
  expect(rest.body.details[0]).toMatchObject({ field: 'owner', code: 'CNAME_AT_APEX' });

  const gql = await app.gql(
    CREATE_RECORD,
    { input: { zone: ZONE, owner: '@', type: 'CNAME', rdata: 'elsewhere.example.net.', ttl: 3600 } },
    aliceKey,
  );
  expect(errorCode(gql)).toBe('CNAME_CONFLICT');
  expect(gql.errors![0].message).toMatch(/cannot be at the apex/);
  expect(gql.errors![0].extensions.details[0].code).toBe('CNAME_AT_APEX');
});

test("an import into a zone the key cannot see is ZONE_NOT_FOUND alone, before the file's lines", async () => {
  const text = Array.from({ length: 33 }, (_, i) => `host${i}.elsewhere.test. 3600 IN A 192.0.2.${i + 1}`).join('\n');
  for (const zone of [BOB_ZONE, 'nosuch.first-day.test']) {
    const gql = await app.gql(IMPORT, { z: zone, t: text }, aliceKey);
    expect(errorCode(gql)).toBe('ZONE_NOT_FOUND');
    expect(gql.errors![0].extensions.details).toEqual([expect.objectContaining({ code: 'ZONE_NOT_FOUND', field: 'zone' })]);
  }
});

test('a user cannot create a single-label zone; the admin key can (a registry serving a TLD)', async () => {
  const gql = await app.gql(
    `mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }`,
    { u: aliceId, z: 'singlelabel' },
    aliceKey,
  );
  expect(errorCode(gql)).toBe('ZONE_IS_SINGLE_LABEL');
  expect(gql.errors![0].extensions.details).toEqual([expect.objectContaining({ field: 'zone', code: 'ZONE_IS_SINGLE_LABEL' })]);
  const rest = await app.http.post('/api/domain/add').set('X-API-Key', aliceKey).send({ user_id: aliceId, zone: 'example.' });
  expect(rest.status).toBe(422);
  expect(rest.body).toMatchObject({ error: 'ZONE_IS_SINGLE_LABEL', details: [{ field: 'zone' }] });

  const admin = await app.http.post('/api/domain/add').set('X-API-Key', ADMIN_KEY).send({ user_id: aliceId, zone: 'example' });
  expect(admin.status).toBe(201);
});

test('an unknown CAA tag and a second SPF record at the apex are taken with a warning', async () => {
  const add = (owner: string, type: string, rdata: string) =>
    app.gql(CREATE_RECORD, { input: { zone: ZONE, owner, type, rdata, ttl: 3600 } }, aliceKey);
  expect(gqlWarnings(await add('@', 'CAA', '0 isue "letsencrypt.org"'))).toEqual(['CAA_UNKNOWN_TAG']);
  expect(gqlWarnings(await add('@', 'CAA', '0 issue "letsencrypt.org"'))).toEqual([]);
  expect(gqlWarnings(await add('@', 'TXT', 'v=spf1 mx -all'))).toEqual([]);
  const second = await app.http
    .post('/api/record/add')
    .set('X-API-Key', aliceKey)
    .send({ zone: ZONE, owner: '@', rtype: 'TXT', rdata: 'v=spf1 include:hoster.test ~all', ttl: 3600 });
  expect(second.status).toBe(201);
  expect(headerWarnings(second).map((w) => w.code)).toEqual(['SPF_MULTIPLE_RECORDS']);

  const check = await app.gql(`query($z: String!) { checkZone(zone: $z) { warnings { owner type code } } }`, { z: ZONE }, aliceKey);
  const codes = check.data.checkZone.warnings.map((w: any) => `${w.owner} ${w.type} ${w.code}`);
  expect(codes).toEqual(expect.arrayContaining(['@ CAA CAA_UNKNOWN_TAG', '@ TXT SPF_MULTIPLE_RECORDS']));
});

test("a Cloudflare export's SOA without its final dot names the owner it got and the dot; an apex CNAME is one error suggesting ALIAS", async () => {
  const text = [
    `${ZONE} 3600 IN SOA ns1.example.net. dns.example.net. 2040000000 10000 2400 604800 3600`,
    `${ZONE}. 3600 IN NS ns1.example.net.`,
    `${ZONE}. 300 IN CNAME shop.example.net.`,
    `${ZONE}. 300 IN MX 10 mail.example.net.`,
    `${ZONE}. 300 IN TXT "v=spf1 -all"`,
  ].join('\n');
  const res = await app.gql(IMPORT, { z: ZONE, t: text }, aliceKey);
  expect(errorCode(res)).toBe('INVALID_ZONE_FILE');
  const details = res.errors![0].extensions.details.map((d: any) => [d.line, d.code]);
  expect(details).toEqual([
    [1, 'SOA_NOT_AT_APEX'],
    [3, 'CNAME_AT_APEX'],
  ]);
  const [soa, cname] = res.errors![0].extensions.details;
  expect(soa.message).toBe(
    `line 1: owner: the SOA record belongs at the apex (@) of ${ZONE}, not at ${ZONE}.${ZONE}. (\`${ZONE}\` without a final dot is relative to the zone: write \`${ZONE}.\`, or @)`,
  );
  expect(cname.message).toMatch(/an ALIAS record serves its target's addresses there instead \(with ALIAS_RESOLVERS set\)$/);
});

test('REST: a negative TTL is out of range, and `type` sent for `rtype` is named as sent', async () => {
  const negative = await app.http
    .post('/api/record/add')
    .set('X-API-Key', aliceKey)
    .send({ zone: ZONE, owner: 'neg', rtype: 'A', rdata: '192.0.2.1', ttl: -5 });
  expect(negative.status).toBe(422);
  expect(negative.body.details).toEqual([{ field: 'ttl', code: 'NUMBER_TOO_SMALL', message: 'ttl must be from 0 to 2147483647 (got -5)' }]);

  const typed = await app.http
    .post('/api/record/add')
    .set('X-API-Key', aliceKey)
    .send({ zone: ZONE, owner: 'typed', type: 'A', rdata: '192.0.2.1', ttl: 300 });
  expect(typed.status).toBe(422);
  expect(typed.body.details).toEqual([
    {
      field: 'type',
      code: 'UNKNOWN_FIELD',
      message: 'type is not a field of this request: this request calls it rtype (expected: zone, owner, rtype, rdata, ttl, comment)',
    },
    { field: 'rtype', code: 'REQUIRED', message: 'rtype is required (the body has type)' },
  ]);
});

test('a CNAME where A, AAAA and TXT are names each type, not only the first', async () => {
  for (const [type, rdata] of [
    ['A', '192.0.2.7'],
    ['AAAA', '2001:db8::7'],
    ['TXT', '"held"'],
  ])
    expect(
      (await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: 'held', type, rdata, ttl: 300 } }, aliceKey)).errors,
    ).toBeUndefined();
  const rest = await app.http
    .post('/api/record/add')
    .set('X-API-Key', aliceKey)
    .send({ zone: ZONE, owner: 'held', rtype: 'CNAME', rdata: 'elsewhere.example.net.', ttl: 300 });
  expect(rest.status).toBe(409);
  expect(rest.body.message).toBe('A, AAAA and TXT records already exist with that owner');
});
