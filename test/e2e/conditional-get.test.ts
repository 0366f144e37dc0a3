import { Client } from 'pg';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait-for';
import { CREATE_RECORD, createUser, createUserKey, createZone } from '../support/fixtures';

/**
 * GET answers (REST, GraphQL over GET) carry an ETag derived from the data the caller can
 * see; If-None-Match with it is 304 while nothing changed, and every kind of change gives a new ETag, for
 * the admin key and for a user's key.
 */
let app: TestApp;
let userId: string;
let userKey: string;
beforeAll(async () => {
  app = await startTestApp();
  userId = await createUser(app, 'poller@example.org');
  await createZone(app, userId, 'poll.example');
  userKey = await createUserKey(app, userId);
  // a key's first use writes its last_used_at (api-keys.service.ts, UsageClock) after the answer, which moves
  // the version of every list showing the key; the tests below compare ETags of a key already in use
  expect((await app.http.get('/api/domain/list').set('X-API-Key', userKey)).status).toBe(200);
  const db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  try {
    await waitUntil('the user key marked used', async () => {
      const { rows } = await db.query('select last_used_at from api_keys where user_id = $1', [userId]);
      return rows.length === 1 && rows[0].last_used_at !== null;
    });
  } finally {
    await db.end();
  }
});
afterAll(async () => app.close());

const GRAPHQL_LIST =
  '/graphql?query=' +
  encodeURIComponent('{ domains { nodes { name serial records(first: 100) { owner type rdata } } } apiKeys(userId: "USER") { id name } }');

/** the paths a poller reads, each as the admin and as the user's key */
const reads = () => [
  '/api/domain/export/poll.example',
  '/api/domain/list',
  '/api/record/list',
  '/api/user/list',
  `/api/domain/list/user/${userId}`,
  GRAPHQL_LIST.replace('USER', userId),
];

async function etags(key: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const path of reads()) {
    const res = await app.http.get(path).set('X-API-Key', key);
    expect([path, res.status]).toEqual([path, 200]);
    expect([path, typeof res.headers.etag]).toEqual([path, 'string']);
    found.set(path, res.headers.etag);
  }
  return found;
}

test('an unchanged answer is 304 with no body; a changed one is 200 with a new ETag', async () => {
  const first = await app.http.get('/api/domain/export/poll.example').set('X-API-Key', ADMIN_KEY);
  expect(first.status).toBe(200);
  expect(first.headers['cache-control']).toBe('private, no-cache');
  const again = await app.http.get('/api/domain/export/poll.example').set('X-API-Key', ADMIN_KEY).set('If-None-Match', first.headers.etag);
  expect(again.status).toBe(304);
  expect(again.text ?? '').toBe('');

  const added = await app.gql(CREATE_RECORD, { input: { zone: 'poll.example', owner: 'new', type: 'A', rdata: '192.0.2.9', ttl: 3600 } });
  expect(added.errors).toBeUndefined();
  const after = await app.http.get('/api/domain/export/poll.example').set('X-API-Key', ADMIN_KEY).set('If-None-Match', first.headers.etag);
  expect(after.status).toBe(200);
  expect(after.text).toContain('192.0.2.9');
  expect(after.headers.etag).not.toBe(first.headers.etag);
});

test('GraphQL over GET: 304 while unchanged, with the key as its only extra header', async () => {
  const path = GRAPHQL_LIST.replace('USER', userId);
  const first = await app.http.get(path).set('X-API-Key', userKey);
  expect(first.status).toBe(200);
  expect(first.body.data.domains.nodes[0].name).toBe('poll.example');
  const again = await app.http.get(path).set('X-API-Key', userKey).set('If-None-Match', first.headers.etag);
  expect(again.status).toBe(304);
  // another key sees other data: never the same ETag
  const asAdmin = await app.http.get(path).set('X-API-Key', ADMIN_KEY).set('If-None-Match', first.headers.etag);
  expect(asAdmin.status).toBe(200);
});

test('errors carry no ETag', async () => {
  const missing = await app.http.get('/api/domain/export/missing.example').set('X-API-Key', ADMIN_KEY);
  expect(missing.status).toBe(404);
  expect(missing.headers.etag).toBeUndefined();
});

describe.each([
  ['the admin key', () => ADMIN_KEY],
  ["the user's key", () => userKey],
])('every kind of change moves the ETag of every read, for %s', (_label, key) => {
  let recordId: string;
  const changes: [string, () => Promise<unknown>][] = [
    [
      'a record added',
      async () => {
        const res = await app.gql(CREATE_RECORD, { input: { zone: 'poll.example', owner: 'r', type: 'TXT', rdata: '"one"', ttl: 3600 } });
        recordId = res.data.createRecord.id;
      },
    ],
    [
      'a record edited',
      () =>
        app.gql(`mutation($id: ID!, $input: RecordInput!) { updateRecord(id: $id, input: $input) { id } }`, {
          id: recordId,
          input: { zone: 'poll.example', owner: 'r', type: 'TXT', rdata: '"two"', ttl: 3600 },
        }),
    ],
    ['a record deleted', () => app.gql(`mutation($id: ID!) { deleteRecord(id: $id) }`, { id: recordId })],
    ['a zone created', () => createZone(app, userId, `z${Date.now()}.poll.example`)],
    [
      'the user edited',
      () =>
        app.gql(`mutation($id: ID!, $e: String!) { updateUser(id: $id, input: {email: $e}) { id } }`, {
          id: userId,
          e: `poller${Date.now()}@example.org`,
        }),
    ],
    ['an API key created', () => createUserKey(app, userId)],
  ];
  test.each(changes)('%s', async (_change, change) => {
    const before = await etags(key());
    const result = (await change()) as { errors?: unknown } | undefined;
    expect(result && typeof result === 'object' && 'errors' in result ? result.errors : undefined).toBeUndefined();
    const after = await etags(key());
    for (const path of reads()) {
      // the export shows only the zone's own records: a new zone or a new key need not move it
      if (path.startsWith('/api/domain/export') && !_change.startsWith('a record')) continue;
      if (path.startsWith('/api/record/list') && !_change.startsWith('a record')) continue;
      expect([path, after.get(path) === before.get(path)]).toEqual([path, false]);
    }
  });
});

test('a deleted zone moves the ETag of the lists that showed it', async () => {
  await createZone(app, userId, 'gone.poll.example');
  const before = await etags(ADMIN_KEY);
  const res = await app.http.delete('/api/domain/delete').set('X-API-Key', ADMIN_KEY).send({ zone: 'gone.poll.example' });
  expect(res.status).toBeLessThan(300);
  const after = await etags(ADMIN_KEY);
  expect(after.get('/api/domain/list')).not.toBe(before.get('/api/domain/list'));
  expect(after.get(`/api/domain/list/user/${userId}`)).not.toBe(before.get(`/api/domain/list/user/${userId}`));
});

test("a one-zone read's ETag follows that zone alone: another zone's change keeps it, its own change moves it", async () => {
  const zoneId = await createZone(app, userId, 'one.poll.example');
  await createZone(app, userId, 'other.poll.example');
  const paths = [
    '/api/domain/status/one.poll.example',
    `/api/domain/list/zone/${zoneId}`,
    '/api/domain/export/one.poll.example',
    '/api/domain/changes/one.poll.example',
    '/api/domain/check/one.poll.example',
  ];
  const read = async () =>
    Promise.all(
      paths.map(async (path) => {
        const res = await app.http.get(path).set('X-API-Key', ADMIN_KEY);
        expect([path, res.status]).toEqual([path, 200]);
        return res.headers.etag;
      }),
    );
  const before = await read();
  // the version of a one-zone read is that zone's alone (a read costs the same whatever the number of zones)
  expect(
    (await app.gql(CREATE_RECORD, { input: { zone: 'other.poll.example', owner: 'x', type: 'A', rdata: '192.0.2.1', ttl: 3600 } })).errors,
  ).toBeUndefined();
  expect(await read()).toEqual(before);
  expect(
    (await app.gql(CREATE_RECORD, { input: { zone: 'one.poll.example', owner: 'x', type: 'A', rdata: '192.0.2.1', ttl: 3600 } })).errors,
  ).toBeUndefined();
  const after = await read();
  paths.forEach((path, i) => expect([path, after[i] === before[i]]).toEqual([path, false]));
});
