/**
 * The REST lists are read page by page and streamed as one JSON array (router.ts, sendItems): records in pages
 * of 10,000 from the records service (the method GraphQL's `records` query is answered by), zones in pages of
 * 200 through the GraphQL operation. A list longer than a page must come whole, in id order, with no item
 * twice and none left out at a page's edge.
 */
import { Client } from 'pg';
import { ADMIN_KEY, startTestApp, TestApp } from '../../support/test-app';
import { createUser, createZone } from '../../support/fixtures';

let app: TestApp;
let db: Client;
const key = { 'X-API-Key': ADMIN_KEY };

beforeAll(async () => {
  app = await startTestApp();
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
}, 60_000);

afterAll(async () => {
  await db?.end();
  await app?.close();
});

/** the items' ids as numbers, checked to be in strictly ascending order (so also distinct) */
function ascendingIds(items: Record<string, unknown>[], idField = 'id'): number[] {
  const ids = items.map((item) => Number(item[idField]));
  ids.forEach((id, i) => {
    if (i > 0 && id <= ids[i - 1]) throw new Error(`item ${i} (id ${id}) is not after item ${i - 1} (id ${ids[i - 1]})`);
  });
  return ids;
}

it('GET /api/record/list streams more than two pages of records whole, in id order', async () => {
  const userId = await createUser(app, 'pages@example.org');
  const zoneId = await createZone(app, userId, 'pages.example.org');
  // 25,000 more records: two full pages of 10,000 and a part of a third
  await db.query(
    `insert into records (domain_id, owner, type, rdata, ttl) select $1, 'h' || g, 'A', '10.0.' || (g >> 8 & 255) || '.' || (g & 255), 300 from generate_series(1, 25000) g`,
    [zoneId],
  );
  const { rows } = await db.query('select id from records order by id');
  const res = await app.http.get('/api/record/list').set(key);
  expect(res.status).toBe(200);
  expect(rows.length).toBeGreaterThan(20_000);
  expect(ascendingIds(res.body)).toEqual(rows.map((row) => Number(row.id)));
  expect(res.body[res.body.length - 1]).toEqual(
    expect.objectContaining({ owner: 'h25000', type: 'A', rdata: '10.0.97.168', zone: 'pages.example.org' }),
  );
}, 60_000);

it('GET /api/domain/list streams more than two pages of zones whole, in id order', async () => {
  const userId = await createUser(app, 'zones@example.org');
  // 420 zones: two full pages of 200 and a part of a third, created ten at a time
  for (let batch = 0; batch < 42; batch++) {
    await Promise.all(Array.from({ length: 10 }, (_, i) => createZone(app, userId, `z${batch * 10 + i}.zones.example.org`)));
  }
  const { rows } = await db.query('select id from domains order by id');
  const res = await app.http.get('/api/domain/list').set(key);
  expect(res.status).toBe(200);
  expect(rows.length).toBeGreaterThan(400);
  expect(ascendingIds(res.body, 'zone_id')).toEqual(rows.map((row) => Number(row.id)));
}, 120_000);
