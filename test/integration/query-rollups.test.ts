/**
 * The query counts' rollups and retention (src/repositories/query-analytics.ts, the worker's `query rollups`
 * duty): an hour's minutes rolled up into the hour and the hours into the day, the minutes then pruned past their
 * retention, and a read over the window answering the same totals before and after, from the one resolution that
 * serves each part of it.
 */
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';
import { bucketCounts, pruneAnalytics, readMarks, rollUp } from '../../src/repositories/query-analytics';
import { inTransaction } from '../../src/services/db-errors';

let app: TestApp;
let zoneId: number;
beforeAll(async () => {
  app = await startTestApp();
  zoneId = Number(await createZone(app, await createUser(app, 'rollups@zk.test'), 'rollups.zk.test'));
});
afterAll(() => app?.close());

it('rolls minutes into hours and days, prunes the minutes rolled, and reads the same totals throughout', async () => {
  const db = app.service.database.db;
  // two minutes of an hour three hours back, and one of the hour under way
  await db.affected(
    `insert into "query_counts" ("zone_id", "resolution", "bucket", "owner", "type", "rcode", "secondary", "count", "last_at")
     select $1, 60, b.at, 'www', 'A', 0, 'ns1', o.n, b.at + interval '17 seconds'
       from (values (interval '-3 hours' + interval '1 minute', 5), (interval '-3 hours' + interval '2 minutes', 7), (interval '0 minutes', 11)) o(at, n),
       lateral (select date_bin('1 hour', now(), timestamptz '2000-01-01 00:00:00+00') + o.at as at) b`,
    [zoneId],
  );
  await db.affected(
    `insert into "query_coverage" ("secondary", "resolution", "bucket", "covered_ms", "frames", "answers")
     select 'ns1', 60, date_bin('1 hour', now(), timestamptz '2000-01-01 00:00:00+00') + interval '-3 hours' + interval '1 minute', 60000, 12, 12`,
  );
  // a window of days, its start on a day's as the analytics service aligns it (QueryAnalyticsService.window): from
  // midnight to 03:00 UTC the hour three hours back is yesterday's, and its day, once rolled, starts before
  // `now - 5 hours`
  const DAY = 86_400_000;
  const window = {
    since: new Date(Math.floor((Date.now() - 5 * 3600_000) / DAY) * DAY),
    until: new Date(Date.now() + 60_000),
    step: 86400,
  };
  const total = async () => {
    const rows = await bucketCounts(db, [zoneId], window, [], await readMarks(db));
    return rows.reduce((sum, row) => sum + Number(row.count), 0);
  };
  expect(await total()).toBe(23);

  expect(await inTransaction(db, (sql) => rollUp(sql, 60, 3600))).toBeInstanceOf(Date);
  expect(await inTransaction(db, (sql) => rollUp(sql, 3600, 86400))).toBeInstanceOf(Date);
  const hours = await db.rows<{ count: string; last_late: boolean }>(
    `select "count", "last_at" = "bucket" + interval '2 minutes 17 seconds' as "last_late" from "query_counts"
      where "resolution" = 3600 and "zone_id" = $1`,
    [zoneId],
  );
  // an hour's count is its minutes', and its last answer their latest
  expect(hours.map((row) => [Number(row.count), row.last_late])).toEqual([[12, true]]);
  expect(await total()).toBe(23);

  // the minutes kept an hour: those three hours back are pruned (their hour was rolled), the current ones stay
  const pruned = await inTransaction(db, (sql) => pruneAnalytics(sql, { 60: 3600, 3600: 35 * 86400, 86400: 400 * 86400 }));
  expect(pruned).toBe(3);
  const minutes = await db.rows<{ count: string }>(`select "count" from "query_counts" where "resolution" = 60 and "zone_id" = $1`, [
    zoneId,
  ]);
  expect(minutes.map((row) => Number(row.count))).toEqual([11]);
  expect(await total()).toBe(23);
});

it('prunes an RRset’s last query with the days kept: older, it reads as never queried', async () => {
  const db = app.service.database.db;
  await db.affected(
    `insert into "query_last_seen" ("zone_id", "owner", "type", "at")
     values ($1, 'old', 'A', now() - interval '401 days'), ($1, 'www', 'A', now() - interval '399 days')`,
    [zoneId],
  );
  const pruned = await inTransaction(db, (sql) => pruneAnalytics(sql, { 60: 3600, 3600: 35 * 86400, 86400: 400 * 86400 }));
  expect(pruned).toBe(1);
  const kept = await db.rows<{ owner: string }>(`select "owner" from "query_last_seen" where "zone_id" = $1 order by "owner"`, [zoneId]);
  expect(kept.map((row) => row.owner)).toEqual(['www']);
});
