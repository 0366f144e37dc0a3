import { ADMIN_KEY, startTestApp, TestApp } from '../../support/test-app';

/**
 * NUL bytes, lone surrogates and 32-bit overflow reach neither PostgreSQL nor a
 * 500, over REST (all three body encodings and the query string) and GraphQL; a snapshot of the data is
 * unchanged after every refusal.
 */
let app: TestApp;
const H = { 'X-API-Key': ADMIN_KEY };
beforeAll(async () => {
  app = await startTestApp();
  const user = await app.http.post('/api/user/add').set(H).send({ email: 'text@example.org' });
  await app.http.post('/api/domain/add').set(H).send({ user_id: user.body.id, zone: 'text.example' });
});
afterAll(async () => app.close());

const snapshot = async () =>
  JSON.stringify((await app.http.get('/api/domain/list').set(H)).body) + JSON.stringify((await app.http.get('/api/user/list').set(H)).body);

const HOSTILE = ['a\u0000b', '\u0000', '\ud800', 'x\udc00y', 'ok\ud83dz'];

test('REST: NUL and lone surrogates in JSON, form and multipart bodies and in the query string are a 422 naming the field', async () => {
  const before = await snapshot();
  for (const value of HOSTILE) {
    const answers = [
      await app.http
        .post('/api/user/add')
        .set(H)
        .set('content-type', 'application/json')
        .send(JSON.stringify({ email: value })),
      await app.http.post('/api/user/add').set(H).type('form').send({ email: value }),
      await app.http.post('/api/user/add').set(H).field('email', value),
      await app.http.get('/api/user/list').set(H).query({ email: value }),
      await app.http.post('/api/record/add').set(H).send({ zone: 'text.example', owner: value, rtype: 'TXT', rdata: '"x"', ttl: 3600 }),
      await app.http
        .post('/api/record/add')
        .set(H)
        .send({ zone: 'text.example', owner: 'www2', rtype: 'TXT', rdata: `"${value}"`, ttl: 3600 }),
    ];
    for (const res of answers) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body.error).toMatch(/^[A-Z_]+$/);
    }
    expect(answers[0].status).toBe(422);
    expect(answers[0].body.details[0].field).toBe('email');
  }
  expect(await snapshot()).toBe(before);
});

test('GraphQL: NUL and lone surrogates in literals and variables are a 400 with a stable INVALID_* code naming the field', async () => {
  const before = await snapshot();
  const cases = [
    await app.gql('{ users(email: "a\\u0000b") { nodes { id } } }'),
    await app.gql('query($e: String!) { user(email: $e) { id } }', { e: 'a\u0000b' }),
    await app.gql('query($o: String) { records(owner: $o) { nodes { id } } }', { o: '\u0000' }),
    await app.gql('{ records(type: "\\u0000") { nodes { id } } }'),
    await app.gql('mutation($n: String!) { createApiKey(input: {userId: "1", name: $n}) { secret } }', { n: 'a\u0000b' }),
    await app.gql('mutation($e: String!) { createUser(input: {email: $e}) { id } }', { e: '\ud800' }),
  ];
  for (const res of cases) {
    expect(res.status).toBe(400);
    expect(res.errors![0].extensions.code).toMatch(/^INVALID_(INPUT|EMAIL|OWNER|TYPE)$/);
    expect(res.errors![0].extensions.details[0].field).toMatch(/email|owner|type|name|e|o|n/);
  }
  // a literal's problem is found once per document (text-input.ts keeps it with the parsed document): the same
  // query again, its document now the one Apollo kept, is refused the same
  for (const [query, first] of [
    ['{ users(email: "a\\u0000b") { nodes { id } } }', cases[0]],
    ['{ records(type: "\\u0000") { nodes { id } } }', cases[3]],
  ] as const) {
    const again = await app.gql(query);
    expect(again.status).toBe(400);
    expect(again.errors).toEqual(first.errors);
  }
  expect(await snapshot()).toBe(before);
});

test('REST: a TTL beyond 32 bits is a 422 naming ttl, not a 500', async () => {
  const before = await snapshot();
  for (const ttl of ['2147483648', '99999999999999', 2147483648]) {
    const res = await app.http
      .post('/api/record/add')
      .set(H)
      .send({ zone: 'text.example', owner: 'big', rtype: 'A', rdata: '192.0.2.1', ttl });
    expect(res.status).toBe(422);
    expect(res.body.details[0]).toMatchObject({ field: 'ttl', code: 'NUMBER_TOO_LARGE' });
  }
  expect(await snapshot()).toBe(before);
});
