/**
 * With a small MAX_PAGE_SIZE (a documented setting), the REST lists and the CLI's still come whole: each page
 * asks for at most MAX_PAGE_SIZE items; and GraphQL refuses a larger page by name (PAGE_TOO_LARGE), which a
 * first just above the limit reaches (a huge first is refused earlier, as too costly).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { buildOnce } from '../../support/build';
import { ADMIN_KEY, startTestApp, TestApp } from '../../support/test-app';
import { createUser, createZone } from '../../support/fixtures';

const root = path.resolve(__dirname, '..', '..', '..');
const MAX = 50;
let app: TestApp;
const key = { 'X-API-Key': ADMIN_KEY };

beforeAll(async () => {
  buildOnce();
  app = await startTestApp({ MAX_PAGE_SIZE: String(MAX) });
  const owner = await createUser(app, 'owner@small-pages.test');
  for (let i = 0; i < MAX + 5; i++) await createUser(app, `u${i}@small-pages.test`);
  for (let i = 0; i < MAX + 3; i++) await createZone(app, owner, `z${i}.small-pages.test`);
  const changes = Array.from({ length: 2 * MAX + 7 }, (_, i) => ({
    kind: 'ADD',
    owner: `h${i}`,
    type: 'A',
    rdata: '192.0.2.1',
    ttl: 3600,
  }));
  const res = await app.gql(`mutation($c: [ZoneChangeInput!]!) { applyZoneChanges(zone: "z0.small-pages.test", changes: $c) { serial } }`, {
    c: changes,
  });
  expect(res.errors).toBeUndefined();
}, 120_000);

afterAll(async () => {
  await app?.close();
});

test('GET /api/user/list, /api/domain/list and /api/record/list come whole', async () => {
  expect((await app.http.get('/api/user/list').set(key)).body).toHaveLength(MAX + 6);
  expect((await app.http.get('/api/domain/list').set(key)).body).toHaveLength(MAX + 3);
  const records = (await app.http.get('/api/record/list').set(key)).body;
  // the set's records and each zone's default SOA, 2 NS and www CNAME
  expect(records).toHaveLength(2 * MAX + 7 + 4 * (MAX + 3));
});

test("a zone's records come whole in the REST answers, past MAX_PAGE_SIZE (a GraphQL client's Domain.records stops there)", async () => {
  const zones = (await app.http.get('/api/domain/list').set(key)).body as { zone: string; records: unknown[] }[];
  expect(zones.find((z) => z.zone === 'z0.small-pages.test')!.records).toHaveLength(2 * MAX + 7 + 4);
  const zone = (await app.http.get('/api/domain/list/zone?name=z0.small-pages.test').set(key)).body;
  expect(zone.records).toHaveLength(2 * MAX + 7 + 4);
  const nested = await app.gql('{ domain(name: "z0.small-pages.test") { records { id } } }');
  expect(nested.data.domain.records).toHaveLength(MAX);
});

test("the CLI's lists come whole too, in pages of the service's size", async () => {
  const out = await new Promise<string>((resolve) => {
    const child = spawn(
      process.execPath,
      [path.join(root, 'dist', 'src', 'cli', 'main.js'), '--json', 'record', 'list', 'z0.small-pages.test'],
      {
        env: { PATH: process.env.PATH, ZONEKEEPER_URL: app.baseUrl, ZONEKEEPER_API_KEY: ADMIN_KEY },
      },
    );
    let text = '';
    child.stdout.on('data', (chunk) => (text += chunk));
    child.on('close', () => resolve(text));
  });
  expect(JSON.parse(out)).toHaveLength(2 * MAX + 7 + 4);
});

test('GraphQL: a page one larger than MAX_PAGE_SIZE is refused by name', async () => {
  const res = await app.gql(`{ records(first: ${MAX + 1}) { nodes { id } } }`);
  expect(res.errors?.[0]?.extensions?.details?.[0]?.code).toBe('PAGE_TOO_LARGE');
});
