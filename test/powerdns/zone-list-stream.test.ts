/**
 * The PowerDNS API's list of every zone (`GET /api/v1/servers/localhost/zones`, which external-dns and octoDNS
 * read whole) is written as it is read, page by page (docs/scale.md): chunked, with no length known beforehand,
 * and its answer is the one the zones give one by one (`?zone=`): the same zones, in id order, each as
 * PowerDNS shows it. 1,200 zones: a first page of 500, then the rest.
 */
import { startTestApp, TestApp, ADMIN_KEY } from '../support/test-app';
import { createUser } from '../support/fixtures';

const ZONES = '/api/v1/servers/localhost/zones';
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
  const users = [await createUser(app, 'list-a@example.org'), await createUser(app, 'list-b@example.org')];
  const input = Array.from({ length: 1200 }, (_, i) => ({ userId: users[i % 2], zone: `z${i}.list.test` }));
  const made = await app.gql(`mutation($input: [CreateDomainInput!]!) { createDomains(input: $input) { id } }`, { input });
  expect(made.errors).toBeUndefined();
  // one labelled as the PowerDNS API was told (its account, its kind), one signed: both show in the list
  const labelled = await app.http
    .post(ZONES)
    .set('X-API-Key', ADMIN_KEY)
    .send({ name: 'labelled.list.test.', kind: 'Native', account: 'provider-7', nameservers: ['ns1.list.net.'] });
  expect(labelled.status).toBe(201);
  const signed = await app.http
    .post(ZONES)
    .set('X-API-Key', ADMIN_KEY)
    .send({ name: 'signed.list.test.', kind: 'Native', dnssec: true, nameservers: ['ns1.list.net.'] });
  expect(signed.status).toBe(201);
  // an account is any text, ASCII's separators too (the list's pages come packed between them: such a page is read
  // row by row), and a kind told as empty is not a kind not told
  const db = app.service.database.db;
  expect(
    await db.affected(`update domains set api_account = 'odd' || chr(31) || 'account' || chr(30) || '1' where name = 'z700.list.test'`),
  ).toBe(1);
  expect(await db.affected(`update domains set api_kind = '' where name = 'z3.list.test'`)).toBe(1);
}, 120_000);
afterAll(async () => {
  await app?.close();
});

test('every zone, streamed, equal to the zones read one by one, in id order', async () => {
  const res = await app.http.get(ZONES).set('X-API-Key', ADMIN_KEY);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/application\/json/);
  // written as it was read: no length known before the last page
  expect(res.headers['transfer-encoding']).toBe('chunked');
  expect(res.headers['content-length']).toBeUndefined();
  const listed = res.body as { id: string; name: string; account: string; kind: string }[];
  expect(listed).toHaveLength(1202);
  const ids = (await app.service.database.db.rows('select name from domains order by id')).map((r: { name: string }) => `${r.name}.`);
  expect(listed.map((zone) => zone.name)).toEqual(ids);

  const one = async (name: string) => {
    const answer = await app.http.get(ZONES).query({ zone: name }).set('X-API-Key', ADMIN_KEY);
    expect(answer.status).toBe(200);
    return answer.body[0];
  };
  const byOne = [];
  for (let i = 0; i < listed.length; i += 50) byOne.push(...(await Promise.all(listed.slice(i, i + 50).map((zone) => one(zone.name)))));
  expect(listed).toEqual(byOne);
  expect(listed.find((zone) => zone.name === 'labelled.list.test.')).toMatchObject({ account: 'provider-7', kind: 'Native' });
  expect(listed.find((zone) => zone.name === 'z1.list.test.')).toMatchObject({ account: 'list-b@example.org', kind: 'Master' });
  expect(listed.find((zone) => zone.name === 'signed.list.test.')).toMatchObject({ dnssec: true, kind: 'Native' });
  expect(listed.filter((zone) => (zone as { dnssec?: boolean }).dnssec)).toHaveLength(1);
  expect(listed.find((zone) => zone.name === 'z700.list.test.')).toMatchObject({ account: 'odd\u001faccount\u001e1' });
  expect(listed.find((zone) => zone.name === 'z3.list.test.')).toMatchObject({ kind: '' });
}, 120_000);

test("a user's key lists its own zones only, streamed the same way", async () => {
  const [user] = await app.service.database.db.rows(`select id from users where email = 'list-b@example.org'`);
  const created = await app.gql(`mutation($u: ID!) { createApiKey(input: {userId: $u, name: "list"}) { secret } }`, { u: String(user.id) });
  const res = await app.http.get(ZONES).set('X-API-Key', created.data.createApiKey.secret);
  expect(res.status).toBe(200);
  expect(res.body).toHaveLength(600);
  expect(res.body.every((zone: { name: string }) => Number(/^z(\d+)\./.exec(zone.name)![1]) % 2 === 1)).toBe(true);
});
