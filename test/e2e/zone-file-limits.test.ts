import { request } from 'node:http';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';
import { largeZoneFile } from '../support/large-zone';

/**
 * Zone-file imports have their own bound (IMPORT_BODY_LIMIT), sized for a zone of the record quota: on the
 * default settings a 5 MB zone of 71,819 records (under MAX_RECORDS_PER_ZONE, 100,000) imports whole, while
 * every other request stays within BODY_LIMIT; each refusal is a 413 naming its limit and setting.
 */
let app: TestApp;
let small: TestApp;
let userId: string;

beforeAll(async () => {
  app = await startTestApp();
  userId = await createUser(app, 'big@example.org');
  // the bounds made small, to see each refusal without sending tens of MB
  small = await startTestApp({ IMPORT_BODY_LIMIT: String(2 * 1024 * 1024) });
  await createZone(small, await createUser(small, 'small@example.org'), 'small.test');
}, 120_000);
afterAll(async () => {
  await Promise.all([app?.close(), small?.close()]);
});

const IMPORT = `mutation($zone: String!, $text: String!) { importZone(zone: $zone, text: $text, mode: REPLACE) { added } }`;
const countOf = async (target: TestApp, zone: string) =>
  (await target.gql(`query($z: String!) { records(zone: $z, first: 1) { totalCount } }`, { z: zone })).data.records.totalCount;

test('a 5 MB zone of 71,819 records imports whole through REST on the default settings', async () => {
  const text = largeZoneFile('big.test', 71_819);
  expect(text.length).toBeGreaterThan(5_000_000);
  expect(text.length).toBeGreaterThan(app.settings.bodyLimit);
  await createZone(app, userId, 'big.test');
  const res = await app.http.post('/api/domain/import/big.test').set('X-API-Key', ADMIN_KEY).send({ text });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ zone: 'big.test', added: 71_819 });
  // the SOA and the two NS beside the file's records
  expect(await countOf(app, 'big.test')).toBe(71_819 + 3);
  const exported = await app.http.get('/api/domain/export/big.test').set('X-API-Key', ADMIN_KEY);
  expect(exported.text).toContain('host-071818 300 IN A 198.51.24.138\n');
  expect(exported.text).toContain(
    's071817._domainkey 300 IN TXT "v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ071817IDAQAB; t=s"\n',
  );
}, 120_000);

describe('each bound refuses with a 413 naming itself and its setting', () => {
  const overBodyLimit = () => 'x'.repeat(small.settings.bodyLimit + 1000);
  const file = (records: number) => largeZoneFile('small.test', records);

  it('an import over IMPORT_BODY_LIMIT: REST and GraphQL', async () => {
    const text = file(40_000);
    expect(text.length).toBeGreaterThan(small.settings.importBodyLimit);
    const rest = await small.http.post('/api/domain/import/small.test').set('X-API-Key', ADMIN_KEY).send({ text });
    expect(rest.status).toBe(413);
    expect(rest.body).toMatchObject({ code: 413, status: 'error', error: 'PAYLOAD_TOO_LARGE' });
    expect(rest.body.message).toContain('IMPORT_BODY_LIMIT (2097152 bytes)');
    expect(rest.body.details).toEqual([expect.objectContaining({ field: 'body', code: 'PAYLOAD_TOO_LARGE', limit: 2097152 })]);
    const gql = await small.gql(IMPORT, { zone: 'small.test', text });
    expect(gql.status).toBe(413);
    expect(gql.errors![0].extensions).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: [{ field: 'body', limit: 2097152 }] });
    expect(gql.errors![0].message).toContain('IMPORT_BODY_LIMIT (2097152 bytes)');
    // a multipart upload too (curl -F text=@file)
    const form = await small.http
      .post('/api/domain/import/small.test')
      .set('X-API-Key', ADMIN_KEY)
      .attach('text', Buffer.from(text), 'small.test.zone');
    expect(form.status).toBe(413);
    expect(form.body.message).toContain('IMPORT_BODY_LIMIT');
  });

  it('an import over BODY_LIMIT and within IMPORT_BODY_LIMIT is taken: REST, GraphQL, multipart', async () => {
    const text = file(20_000);
    expect(text.length).toBeGreaterThan(small.settings.bodyLimit);
    expect(text.length).toBeLessThan(small.settings.importBodyLimit);
    expect((await small.gql(IMPORT, { zone: 'small.test', text })).data.importZone).toEqual({ added: 20_000 });
    const rest = await small.http
      .post('/api/domain/import/small.test')
      .set('X-API-Key', ADMIN_KEY)
      .send({ text: file(20_001) });
    expect(rest.status).toBe(200);
    expect(rest.body.added).toBe(1);
    const form = await small.http
      .post('/api/domain/import/small.test')
      .set('X-API-Key', ADMIN_KEY)
      .field('mode', 'MERGE')
      .attach('text', Buffer.from(file(20_002)), 'small.test.zone');
    expect(form.status).toBe(200);
    expect(form.body.added).toBe(1);
    expect(await countOf(small, 'small.test')).toBe(20_002 + 3);
  });

  it('any other request over BODY_LIMIT: GraphQL (whatever it is, and an import beside it), REST', async () => {
    const big = overBodyLimit();
    for (const query of [
      `query($pad: String) { __typename }`,
      `mutation($pad: String!) { createUser(input: { email: "pad@example.org" }) { id } }`,
      `mutation($pad: String!) { importZone(zone: "small.test", text: $pad, mode: MERGE) { added } createUser(input: { email: "pad@example.org" }) { id } }`,
    ]) {
      const res = await small.gql(query, { pad: big });
      expect({ query, status: res.status }).toEqual({ query, status: 413 });
      expect(res.errors![0].extensions).toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        details: [{ field: 'body', limit: small.settings.bodyLimit }],
      });
      expect(res.errors![0].message).toContain(`BODY_LIMIT (${small.settings.bodyLimit} bytes)`);
      expect(res.errors![0].message).not.toContain('over IMPORT_BODY_LIMIT');
    }
    const rest = await small.http
      .post('/api/record/add')
      .set('X-API-Key', ADMIN_KEY)
      .send({ zone: 'small.test', owner: 'x', rtype: 'TXT', rdata: big, ttl: 300 });
    expect(rest.status).toBe(413);
    expect(rest.body).toMatchObject({ error: 'PAYLOAD_TOO_LARGE', details: [{ field: 'body', limit: small.settings.bodyLimit }] });
    expect(rest.body.message).toContain(`over BODY_LIMIT (${small.settings.bodyLimit} bytes)`);
    // a body of unsaid length (chunked) is taken as its length turns out: a small one as any request
    const chunked = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request(`${small.baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': ADMIN_KEY, 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.write('{"query": "{ __typename }"');
      req.end('}');
    });
    expect(chunked).toEqual({ status: 200, body: { data: { __typename: 'Query' } } });
    // nothing of them was done
    const users = await small.gql(`{ users(first: 100) { nodes { email } } }`);
    expect(users.data.users.nodes.map((u: { email: string }) => u.email)).not.toContain('pad@example.org');
  });
});
