/**
 * Record templates (docs/templates-and-alias.md): a zone created with a template holds exactly its records
 * (GraphQL and REST; the CLI in test/integration/cli.test.ts), a template that would break a zone rule is
 * refused when saved, naming the record, and a merge into a templated zone names the file's conflicting line.
 */
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey, errorCode } from '../support/fixtures';

let app: TestApp;
let userId: string;
beforeAll(async () => {
  app = await startTestApp();
  userId = await createUser(app, 'owner@templates.test');
});
afterAll(async () => app?.close());

const SAVE = `mutation($i: CreateRecordTemplateInput!) { createRecordTemplate(input: $i) { id userId name records { owner type rdata ttl } } }`;
const HOSTING = [
  { owner: '@', type: 'SOA', rdata: 'ns1.hosting.example. hostmaster.{zone}. 1 7200 900 1209600 300', ttl: 3600 },
  { owner: '@', type: 'NS', rdata: 'ns1.hosting.example.', ttl: 86400 },
  { owner: '@', type: 'NS', rdata: 'ns2.hosting.example.', ttl: 86400 },
  { owner: '@', type: 'MX', rdata: '10 mail', ttl: 3600 },
  { owner: '@', type: 'TXT', rdata: '"v=spf1 include:_spf.{zone} -all"', ttl: 3600 },
  { owner: 'www', type: 'CNAME', rdata: '@', ttl: 3600 },
  { owner: 'mail', type: 'A', rdata: '192.0.2.25', ttl: 3600 },
];

const recordsOf = async (zone: string) => {
  const res = await app.gql(`query($n: String) { domain(name: $n) { serial records(first: 100) { owner type rdata ttl } } }`, { n: zone });
  expect(res.errors).toBeUndefined();
  return res.data.domain;
};
const lines = (records: { owner: string; type: string; rdata: string; ttl: number }[]) =>
  records.map((r) => `${r.owner} ${r.ttl} ${r.type} ${r.rdata}`).sort();

test('a zone created with a template, through GraphQL and REST, holds exactly its records, {zone} and relative names expanded', async () => {
  const saved = await app.gql(SAVE, { i: { name: 'hosting', records: HOSTING } });
  expect(saved.errors).toBeUndefined();
  expect(saved.data.createRecordTemplate).toMatchObject({ userId: null, name: 'hosting', records: HOSTING });

  const gql = await app.gql(
    `mutation($u: ID!) { createDomain(input: {userId: $u, zone: "t1.templates.test", template: "hosting"}) { id } }`,
    {
      u: userId,
    },
  );
  expect(gql.errors).toBeUndefined();
  const rest = await app.http
    .post('/api/domain/add')
    .set({ 'X-API-Key': ADMIN_KEY })
    .send({ user_id: Number(userId), zone: 't2.templates.test', template: 'hosting' });
  expect(rest.status).toBe(201);
  expect(rest.body).toEqual({ id: expect.any(Number), zone: 't2.templates.test' });

  for (const zone of ['t1.templates.test', 't2.templates.test']) {
    const domain = await recordsOf(zone);
    expect(lines(domain.records)).toEqual(
      lines([
        { owner: '@', type: 'SOA', rdata: `ns1.hosting.example. hostmaster.${zone}. ${domain.serial} 7200 900 1209600 300`, ttl: 3600 },
        { owner: '@', type: 'NS', rdata: 'ns1.hosting.example.', ttl: 86400 },
        { owner: '@', type: 'NS', rdata: 'ns2.hosting.example.', ttl: 86400 },
        { owner: '@', type: 'MX', rdata: `10 mail.${zone}.`, ttl: 3600 },
        { owner: '@', type: 'TXT', rdata: `"v=spf1 include:_spf.${zone} -all"`, ttl: 3600 },
        { owner: 'www', type: 'CNAME', rdata: `${zone}.`, ttl: 3600 },
        { owner: 'mail', type: 'A', rdata: '192.0.2.25', ttl: 3600 },
      ]),
    );
  }
  // without a template (REST's documented shape unchanged): the settings' default records, as before
  const plain = await app.http
    .post('/api/domain/add')
    .set({ 'X-API-Key': ADMIN_KEY })
    .send({ user_id: Number(userId), zone: 't3.templates.test' });
  expect(plain.status).toBe(201);
  expect((await recordsOf('t3.templates.test')).records.map((r: any) => `${r.owner} ${r.type}`).sort()).toEqual([
    '@ NS',
    '@ NS',
    '@ SOA',
    'www CNAME',
  ]);
  // an unknown template: 404 naming the field, and no zone
  const unknown = await app.gql(
    `mutation($u: ID!) { createDomain(input: {userId: $u, zone: "t4.templates.test", template: "nope"}) { id } }`,
    {
      u: userId,
    },
  );
  expect(errorCode(unknown)).toBe('TEMPLATE_NOT_FOUND');
  expect(unknown.errors![0].extensions.details[0].field).toBe('template');
  expect((await app.gql(`query { domain(name: "t4.templates.test") { id } }`)).errors?.[0]?.extensions?.code).toBe('ZONE_NOT_FOUND');
});

test('a template that would break a zone rule is refused when saved, naming the record', async () => {
  const apexCname = await app.gql(SAVE, {
    i: { name: 'broken', records: [...HOSTING, { owner: '@', type: 'CNAME', rdata: 'cdn.example.net.', ttl: 3600 }] },
  });
  expect(errorCode(apexCname)).toBe('CNAME_CONFLICT');
  expect(apexCname.errors![0].extensions.details).toEqual(
    expect.arrayContaining([expect.objectContaining({ field: 'records[7].owner', code: 'CNAME_AT_APEX' })]),
  );
  expect(apexCname.errors![0].extensions.details[0].message).toMatch(/^records\[7\] \(@ CNAME\)/);

  const badRdata = await app.gql(SAVE, {
    i: { name: 'broken', records: [...HOSTING.slice(0, 3), { owner: 'x', type: 'A', rdata: '300.1.1.1', ttl: 3600 }] },
  });
  expect(errorCode(badRdata)).toBe('INVALID_RDATA');
  expect(badRdata.errors![0].extensions.details[0].field).toBe('records[3].rdata');

  const noSoa = await app.gql(SAVE, { i: { name: 'broken', records: HOSTING.slice(1) } });
  expect(noSoa.errors![0].extensions.details[0]).toMatchObject({ field: 'records', code: 'SOA_MISSING' });
  // nothing saved
  const list = await app.gql(`query { recordTemplates { id name } }`);
  expect(list.data.recordTemplates.map((t: any) => t.name)).not.toContain('broken');
});

test("the default template is the settings'; a user's own template wins over an admin-wide one of the same name, and is the user's alone", async () => {
  const other = await createUser(app, 'other@templates.test');
  const key = await createUserKey(app, userId);
  const own = HOSTING.map((r) => (r.type === 'A' ? { ...r, rdata: '198.51.100.25' } : r));
  const saved = await app.gql(SAVE, { i: { name: 'hosting', records: own } }, key);
  expect(saved.errors).toBeUndefined();
  expect(saved.data.createRecordTemplate.userId).toBe(userId);
  expect(errorCode(await app.gql(SAVE, { i: { name: 'hosting', records: own } }, key))).toBe('DUPLICATE_TEMPLATE');

  const listed = await app.gql(`query { recordTemplates { id userId name records { owner type rdata } } }`, {}, key);
  expect(listed.data.recordTemplates.map((t: any) => [t.name, t.userId])).toEqual([
    ['default', null],
    ['hosting', null],
    ['hosting', userId],
  ]);
  expect(listed.data.recordTemplates[0].records.map((r: any) => `${r.owner} ${r.type} ${r.rdata}`)).toContain('www CNAME {zone}.');

  const create = (u: string, zone: string, k?: string) =>
    app.gql(
      `mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z, template: "hosting"}) { id } }`,
      { u, z: zone },
      k,
    );
  expect((await create(userId, 'own.templates.test', key)).errors).toBeUndefined();
  expect((await create(other, 'theirs.templates.test')).errors).toBeUndefined();
  const address = async (zone: string) => (await recordsOf(zone)).records.find((r: any) => r.type === 'A').rdata;
  expect(await address('own.templates.test')).toBe('198.51.100.25');
  expect(await address('theirs.templates.test')).toBe('192.0.2.25');
});

test('a merge of a customer file into a templated zone tells each conflict with its line', async () => {
  const text = [
    '; customer file',
    'shop 3600 IN A 192.0.2.80',
    'www 3600 IN A 192.0.2.81',
    'mail 3600 IN CNAME mx.elsewhere.example.',
  ].join('\n');
  const res = await app.gql(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: MERGE) { added } }`, {
    z: 't1.templates.test',
    t: text,
  });
  expect(errorCode(res)).toBe('CNAME_CONFLICT');
  const details = res.errors![0].extensions.details;
  expect(details).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ code: 'CNAME_CONFLICT', line: 3 }),
      expect.objectContaining({ code: 'CNAME_CONFLICT', line: 4 }),
    ]),
  );
  expect(details.find((d: any) => d.line === 3).message).toMatch(/^line 3: /);
  // all or nothing
  expect((await recordsOf('t1.templates.test')).records.some((r: any) => r.owner === 'shop')).toBe(false);
});
