/**
 * Query analytics' SQL (docs/analytics.md): the collector's batched writes, the worker's rollups and retention,
 * and the reads. `query_counts` and `query_coverage` hold three resolutions (a bucket's seconds: 60, 3600, 86400);
 * an hour is rolled up from its minutes and a day from its hours, again for a while after it ends (late frames).
 * `query_rollups.through` says up to where a resolution was rolled: a read takes minutes from the hours' mark on,
 * hours from the days' mark to the hours', days before, so no query is counted twice nor missed.
 */
import type { Sql } from '../db/pool';
import { FIELD_SEPARATOR } from './read-model/packed-records';

export interface CountRow {
  zoneId: number;
  /** the minute's start (ms since the epoch) */
  minute: number;
  owner: string;
  type: string;
  rcode: number;
  secondary: string;
  count: number;
  /** the last answer's time (ms) */
  lastAt: number;
}

export interface CoverageRow {
  secondary: string;
  minute: number;
  /** the earliest moment of the minute counted for the secondary (connected, or a frame received) */
  firstAt: number;
  coveredMs: number;
  frames: number;
  answers: number;
  unmatched: number;
  malformed: number;
  dropped: number;
}

export const RESOLUTIONS = [60, 3600, 86400] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

/** buckets aligned on UTC whatever the session's time zone */
const ORIGIN = `timestamptz '2000-01-01 00:00:00+00'`;

/** the zones' names and ids, for the collector's matching */
export async function zoneNames(sql: Sql): Promise<Map<string, number>> {
  const rows = await sql.rows<{ id: string; name: string }>(`select "id", "name" from "domains"`);
  return new Map(rows.map((row) => [row.name, Number(row.id)]));
}

/**
 * One flush of the collector: the counts added to their minutes (one statement), each RRset's last query, the
 * coverage added to its secondaries' minutes, the secondaries' first and last time seen. Counts of a zone deleted
 * since its name was matched are left out.
 */
export async function writeTally(sql: Sql, counts: readonly CountRow[], coverage: readonly CoverageRow[], now: Date): Promise<void> {
  if (counts.length) {
    const column = <T>(pick: (row: CountRow) => T) => counts.map(pick);
    const params = [
      column((row) => row.zoneId),
      column((row) => new Date(row.minute)),
      column((row) => row.owner),
      column((row) => row.type),
      column((row) => row.rcode),
      column((row) => row.secondary),
      column((row) => row.count),
      column((row) => new Date(row.lastAt)),
    ];
    await sql.affected(
      `with batch as (
         select b.* from unnest($1::bigint[], $2::timestamptz[], $3::text[], $4::text[], $5::smallint[], $6::text[], $7::bigint[], $8::timestamptz[])
           as b("zone_id", "bucket", "owner", "type", "rcode", "secondary", "count", "last_at")
         join "domains" d on d."id" = b."zone_id"),
       last_seen as (
         insert into "query_last_seen" ("zone_id", "owner", "type", "at")
         select "zone_id", "owner", "type", max("last_at") from batch where "owner" <> '' group by 1, 2, 3
         on conflict ("zone_id", "owner", "type") do update set "at" = greatest("query_last_seen"."at", excluded."at"))
       insert into "query_counts" ("zone_id", "resolution", "bucket", "owner", "type", "rcode", "secondary", "count", "last_at")
       select "zone_id", 60, "bucket", "owner", "type", "rcode", "secondary", "count", "last_at" from batch
       on conflict ("zone_id", "resolution", "bucket", "owner", "type", "rcode", "secondary")
       do update set "count" = "query_counts"."count" + excluded."count",
         "last_at" = greatest("query_counts"."last_at", excluded."last_at")`,
      params,
    );
  }
  if (coverage.length) {
    const column = <T>(pick: (row: CoverageRow) => T) => coverage.map(pick);
    await sql.affected(
      `with batch as (
         select * from unnest($1::text[], $2::timestamptz[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $10::timestamptz[])
           as b("secondary", "bucket", "covered_ms", "frames", "answers", "unmatched", "malformed", "dropped", "first_at")),
       seen as (
         insert into "query_secondaries" ("name", "first_seen", "last_seen")
         select "secondary", min("first_at"), $9::timestamptz from batch group by 1
         on conflict ("name") do update set "first_seen" = least("query_secondaries"."first_seen", excluded."first_seen"),
           "last_seen" = greatest("query_secondaries"."last_seen", excluded."last_seen"))
       insert into "query_coverage" ("secondary", "resolution", "bucket", "covered_ms", "frames", "answers", "unmatched", "malformed", "dropped")
       select "secondary", 60, "bucket", "covered_ms", "frames", "answers", "unmatched", "malformed", "dropped" from batch
       on conflict ("secondary", "resolution", "bucket") do update set
         "covered_ms" = "query_coverage"."covered_ms" + excluded."covered_ms",
         "frames" = "query_coverage"."frames" + excluded."frames",
         "answers" = "query_coverage"."answers" + excluded."answers",
         "unmatched" = "query_coverage"."unmatched" + excluded."unmatched",
         "malformed" = "query_coverage"."malformed" + excluded."malformed",
         "dropped" = "query_coverage"."dropped" + excluded."dropped"`,
      [
        column((row) => row.secondary),
        column((row) => new Date(row.minute)),
        column((row) => row.coveredMs),
        column((row) => row.frames),
        column((row) => row.answers),
        column((row) => row.unmatched),
        column((row) => row.malformed),
        column((row) => row.dropped),
        now,
        column((row) => new Date(Math.min(row.firstAt, row.minute + 60_000))),
      ],
    );
  }
}

/** how long after a bucket ends its rollup is done again, for frames that arrive late */
const LATENESS: Record<number, string> = { 3600: '2 hours', 86400: '2 days' };

/**
 * Rolls `from`'s buckets up into `to`'s (minutes into hours, hours into days) for the buckets ended since the
 * last rollup, less LATENESS: those are computed again whole. One worker at a time (a transaction's advisory
 * lock; another passes). Answers the mark it rolled through, or undefined when another worker held the lock.
 */
export async function rollUp(sql: Sql, from: Resolution, to: Resolution): Promise<Date | undefined> {
  const [{ locked }] = await sql.rows<{ locked: boolean }>(`select pg_try_advisory_xact_lock(hashtext('query_rollups'), $1) as "locked"`, [
    to,
  ]);
  if (!locked) return undefined;
  const step = `interval '${to} seconds'`;
  const [window] = await sql.rows<{ start: Date | null; end: Date }>(
    `select date_bin(${step}, coalesce(r."through" - interval '${LATENESS[to]}', f."oldest"), ${ORIGIN}) as "start",
            date_bin(${step}, now(), ${ORIGIN}) as "end"
       from (select min("bucket") as "oldest" from "query_coverage" where "resolution" = $1) f
       left join "query_rollups" r on r."resolution" = $2`,
    [from, to],
  );
  if (window.start !== null && window.start < window.end) {
    const range = [from, to, window.start, window.end];
    await sql.affected(`delete from "query_counts" where "resolution" = $1 and "bucket" >= $2 and "bucket" < $3`, range.slice(1));
    await sql.affected(
      `insert into "query_counts" ("zone_id", "resolution", "bucket", "owner", "type", "rcode", "secondary", "count", "last_at")
       select "zone_id", $2, date_bin(${step}, "bucket", ${ORIGIN}), "owner", "type", "rcode", "secondary", sum("count"), max("last_at")
         from "query_counts" where "resolution" = $1 and "bucket" >= $3 and "bucket" < $4
        group by 1, 3, 4, 5, 6, 7`,
      range,
    );
    await sql.affected(`delete from "query_coverage" where "resolution" = $1 and "bucket" >= $2 and "bucket" < $3`, range.slice(1));
    // a finer bucket counts at most its own length as covered, however many connections a secondary had open
    await sql.affected(
      `insert into "query_coverage" ("secondary", "resolution", "bucket", "covered_ms", "frames", "answers", "unmatched", "malformed", "dropped")
       select "secondary", $2, date_bin(${step}, "bucket", ${ORIGIN}), sum(least("covered_ms", $1::bigint * 1000)), sum("frames"),
              sum("answers"), sum("unmatched"), sum("malformed"), sum("dropped")
         from "query_coverage" where "resolution" = $1 and "bucket" >= $3 and "bucket" < $4
        group by 1, 3`,
      range,
    );
  }
  await sql.affected(
    `insert into "query_rollups" ("resolution", "through") values ($1, $2)
     on conflict ("resolution") do update set "through" = greatest("query_rollups"."through", excluded."through")`,
    [to, window.end],
  );
  return window.end;
}

/**
 * Deletes each resolution's buckets past its retention, never a finer bucket not yet rolled up (the coarser
 * resolution's mark, less its lateness), the secondaries silent for longer than the days are kept, and the RRsets'
 * last queries as old.
 */
export async function pruneAnalytics(sql: Sql, keep: Record<Resolution, number>): Promise<number> {
  let pruned = 0;
  for (const resolution of RESOLUTIONS) {
    const coarser = RESOLUTIONS.find((r) => r > resolution);
    const bound = `least(now() - make_interval(secs => $2::bigint)${
      coarser
        ? `, coalesce((select "through" - interval '${LATENESS[coarser]}' from "query_rollups" where "resolution" = ${coarser}), '-infinity')`
        : ''
    })`;
    for (const table of ['query_counts', 'query_coverage'])
      pruned += await sql.affected(`delete from "${table}" where "resolution" = $1 and "bucket" < ${bound}`, [
        resolution,
        keep[resolution],
      ]);
  }
  await sql.affected(`delete from "query_secondaries" where "last_seen" < now() - make_interval(secs => $1::bigint)`, [keep[86400]]);
  // an RRset's last query goes with the days' counts: `lastQueried` reads null once no count of it is kept, and the
  // table holds the RRsets asked for within the retention, not every name ever asked (a random-subdomain flood's
  // owners among them). A scan a prune, not an index the collector's every upsert would keep up.
  pruned += await sql.affected(`delete from "query_last_seen" where "at" < now() - make_interval(secs => $1::bigint)`, [keep[86400]]);
  return pruned;
}

/** the marks each resolution serves reads from (minutes from the hours' mark on, hours from the days') */
export interface ReadMarks {
  hoursThrough: Date | undefined;
  daysThrough: Date | undefined;
}

export async function readMarks(sql: Sql): Promise<ReadMarks> {
  const rows = await sql.rows<{ resolution: number; through: Date }>(`select "resolution", "through" from "query_rollups"`);
  const mark = (resolution: number) => rows.find((row) => row.resolution === resolution)?.through;
  return { hoursThrough: mark(3600), daysThrough: mark(86400) };
}

/** the condition that takes each bucket from the one resolution that serves it ($m1: hours' mark, $m2: days') */
const SERVED = (m1: string, m2: string) =>
  `(("resolution" = 60 and "bucket" >= coalesce(${m1}, '-infinity'))
    or ("resolution" = 3600 and "bucket" < coalesce(${m1}, '-infinity') and "bucket" >= coalesce(${m2}, '-infinity'))
    or ("resolution" = 86400 and "bucket" < coalesce(${m2}, '-infinity')))`;

/** the finest resolution a window's start can be read at, by the marks */
export function coarsestNeeded(since: Date, marks: ReadMarks): Resolution {
  if (marks.daysThrough && since < marks.daysThrough) return 86400;
  if (marks.hoursThrough && since < marks.hoursThrough) return 3600;
  return 60;
}

export type QueryDimension = 'rcode' | 'type' | 'owner' | 'secondary';

export interface BucketCountRow {
  zone_id: string;
  start: Date;
  rcode: number | null;
  type: string | null;
  owner: string | null;
  secondary: string | null;
  count: string;
}

/** the zones' counts in [since, until) by buckets of `step` seconds (aligned on `since`), grouped by `by` */
export async function bucketCounts(
  sql: Sql,
  zoneIds: readonly number[],
  window: { since: Date; until: Date; step: number },
  by: readonly QueryDimension[],
  marks: ReadMarks,
): Promise<BucketCountRow[]> {
  const dimension = (name: QueryDimension) => (by.includes(name) ? `"${name}"` : `null::${name === 'rcode' ? 'smallint' : 'text'}`);
  return sql.rows<BucketCountRow>(
    `select "zone_id", date_bin(make_interval(secs => $4::bigint), "bucket", $2::timestamptz) as "start",
            ${dimension('rcode')} as "rcode", ${dimension('type')} as "type", ${dimension('owner')} as "owner",
            ${dimension('secondary')} as "secondary", sum("count")::bigint as "count"
       from "query_counts"
      where "zone_id" = any($1::bigint[]) and "bucket" >= $2 and "bucket" < $3 and ${SERVED('$5::timestamptz', '$6::timestamptz')}
      group by 1, 2, 3, 4, 5, 6
      order by 1, 2`,
    [zoneIds, window.since, window.until, window.step, marks.hoursThrough ?? null, marks.daysThrough ?? null],
  );
}

export type AccountQueryDimension = Exclude<QueryDimension, 'owner'> | 'zone';

export interface AccountBucketCountRow {
  user_id: string;
  start: Date;
  rcode: number | null;
  type: string | null;
  secondary: string | null;
  zone: string | null;
  count: string;
}

/**
 * The accounts' counts in [since, until) by buckets of `step` seconds (aligned on `since`), summed over each
 * account's zones as they are now (a zone deleted takes its counts with it; one moved to another account brings
 * them), grouped by `by`. Owners are never a dimension here: an account's owners are unbounded.
 */
export async function accountBucketCounts(
  sql: Sql,
  userIds: readonly number[],
  window: { since: Date; until: Date; step: number },
  by: readonly AccountQueryDimension[],
  marks: ReadMarks,
): Promise<AccountBucketCountRow[]> {
  const dimension = (name: Exclude<AccountQueryDimension, 'zone'>) =>
    by.includes(name) ? `c."${name}"` : `null::${name === 'rcode' ? 'smallint' : 'text'}`;
  return sql.rows<AccountBucketCountRow>(
    `select d."user_id", date_bin(make_interval(secs => $4::bigint), c."bucket", $2::timestamptz) as "start",
            ${dimension('rcode')} as "rcode", ${dimension('type')} as "type", ${dimension('secondary')} as "secondary",
            ${by.includes('zone') ? 'd."name"' : 'null::text'} as "zone", sum(c."count")::bigint as "count"
       from "domains" d
       join "query_counts" c on c."zone_id" = d."id"
      where d."user_id" = any($1::bigint[]) and c."bucket" >= $2 and c."bucket" < $3
        and ${SERVED('$5::timestamptz', '$6::timestamptz').replace(/"(resolution|bucket)"/g, 'c."$1"')}
      group by 1, 2, 3, 4, 5, 6
      order by 1, 2`,
    [userIds, window.since, window.until, window.step, marks.hoursThrough ?? null, marks.daysThrough ?? null],
  );
}

/** an account's zones' names, for a restricted key's check that it may read each of them whole */
export async function accountZoneNames(sql: Sql, userId: number): Promise<string[]> {
  const rows = await sql.rows<{ name: string }>(`select "name" from "domains" where "user_id" = $1 order by "name"`, [userId]);
  return rows.map((row) => row.name);
}

/** each zone's most queried owners in [since, until) (the "other" row left out), NXDOMAIN's alone if `rcode` */
export async function topOwners(
  sql: Sql,
  zoneIds: readonly number[],
  window: { since: Date; until: Date },
  first: number,
  rcode: number | undefined,
  marks: ReadMarks,
): Promise<{ zone_id: string; owner: string; count: string }[]> {
  return sql.rows(
    `select "zone_id", "owner", "count" from (
       select "zone_id", "owner", sum("count")::bigint as "count",
              row_number() over (partition by "zone_id" order by sum("count") desc, "owner") as "rank"
         from "query_counts"
        where "zone_id" = any($1::bigint[]) and "bucket" >= $2 and "bucket" < $3 and "owner" <> ''
          and ($5::smallint is null or "rcode" = $5) and ${SERVED('$6::timestamptz', '$7::timestamptz')}
        group by 1, 2) ranked
      where "rank" <= $4
      order by "zone_id", "count" desc, "owner"`,
    [zoneIds, window.since, window.until, first, rcode ?? null, marks.hoursThrough ?? null, marks.daysThrough ?? null],
  );
}

/**
 * The RRsets' counts in [since, until) and their last query (ever, as far as the counts are kept), by the marks
 * given (the operation's): the probes of the records' nested lists (rrsetCountsText), over the RRsets asked in one
 * statement
 */
export async function rrsetCounts(
  sql: Sql,
  rrsets: readonly { zoneId: number; owner: string; type: string }[],
  window: RrsetCountWindow,
  marks: ReadMarks,
): Promise<{ zoneId: number; owner: string; type: string; count: number; lastQueried: Date | null }[]> {
  const params: unknown[] = [rrsets.map((r) => r.zoneId), rrsets.map((r) => r.owner), rrsets.map((r) => r.type)];
  const add = (value: unknown) => `$${params.push(value)}`;
  const rows = await sql.rows<{ zone_id: string; owner: string; type: string; counts: string }>(
    `select w."domain_id" as "zone_id", w."owner", w."type", ${rrsetCountsText(add, 'w', [window], marks)} as "counts"
       from unnest($1::bigint[], $2::text[], $3::text[]) as w("domain_id", "owner", "type")`,
    params,
  );
  return rows.map((row) => {
    const [last, count] = row.counts.split(FIELD_SEPARATOR);
    return {
      zoneId: Number(row.zone_id),
      owner: row.owner,
      type: row.type,
      count: Number(count),
      lastQueried: last ? new Date(Number(last)) : null,
    };
  });
}

/** a window of an RRset's counts read with its records: [since, until) */
export interface RrsetCountWindow {
  since: Date;
  until: Date;
}

/**
 * Each record's RRset counts as one text, for the nested record lists that read them in the records' own
 * statement (read-model/records.ts) and for `rrsetCounts`: the last query in milliseconds since the epoch (empty:
 * never queried), then the sum over each window, between ASCII's unit separators (chr(31): FIELD_SEPARATOR). `record` names
 * the table of the RRsets' `domain_id`, `owner` and `type` in that statement. Probes per record, rather than a
 * second statement after the records' (bench/FINDINGS.md, «The records' counts in the records' statement»).
 *
 * The first window's probe of `query_counts_rrset_index` reads on from its start to the RRset's latest row, so
 * that it also gives the last query: a row's `last_at` lies in its bucket, so the latest row at or after the
 * window's start, whatever its resolution, holds the last query when any does. Only an RRset not queried since
 * then (or counted before rows had `last_at`) is probed again, in `query_last_seen` (bench/FINDINGS.md, «One
 * probe per record for the records' counts»). The marks each resolution is served from are `marks` (an operation's,
 * read once for all its windows) or, without them, read in the statement itself, so that its counts are those of one
 * moment of the rollups.
 */
export function rrsetCountsText(
  add: (value: unknown) => string,
  record: string,
  windows: readonly RrsetCountWindow[],
  marks?: ReadMarks,
): string {
  const mark = (resolution: 3600 | 86400, given: Date | undefined) =>
    marks ? `${add(given ?? null)}::timestamptz` : `(select "through" from "query_rollups" where "resolution" = ${resolution})`;
  // the counts' columns named as the counts' own, then the marks put in (their own "resolution" is the rollups')
  const served = SERVED('$m1', '$m2')
    .replace(/"(resolution|bucket)"/g, 'c."$1"')
    .replaceAll('$m1', mark(3600, marks?.hoursThrough))
    .replaceAll('$m2', mark(86400, marks?.daysThrough));
  const ofRrset = (table: string) =>
    `${table}."zone_id" = ${record}."domain_id" and ${table}."owner" = ${record}."owner" and ${table}."type" = ${record}."type"`;
  const epochMs = (at: string) => `floor(extract(epoch from ${at}) * 1000)::bigint::text`;
  const lastSeen = `(select ${epochMs('l."at"')} from "query_last_seen" l where ${ofRrset('l')})`;
  if (!windows.length) return `coalesce(${lastSeen}, '')`;
  const [first, ...others] = windows.map((window) => ({ since: add(window.since), until: add(window.until) }));
  const lastAndFirstSum = `(select coalesce(${epochMs('max(c."last_at")')}, ${lastSeen}, '') || chr(31)
      || coalesce(sum(c."count") filter (where c."bucket" < ${first.until}::timestamptz and ${served}), 0)::text
      from "query_counts" c where ${ofRrset('c')} and c."bucket" >= ${first.since}::timestamptz)`;
  const sums = others.map(
    (window) =>
      `coalesce((select sum(c."count") from "query_counts" c
        where ${ofRrset('c')} and c."bucket" >= ${window.since}::timestamptz and c."bucket" < ${window.until}::timestamptz
          and ${served})::text, '0')`,
  );
  return [lastAndFirstSum, ...sums].join(' || chr(31) || ');
}

/** whether a collector has reported (a secondary seen, and not yet pruned): the "in use" guard reads nothing else */
export async function analyticsReported(sql: Sql): Promise<boolean> {
  const [row] = await sql.rows<{ reported: boolean }>(`select exists (select 1 from "query_secondaries") as "reported"`);
  return row.reported;
}

/** what the "in use" guard read of a zone's traffic (services/zones/in-use-guard.ts) */
export interface RrsetUse {
  /** each RRset's last query (`owner type`), those never queried left out */
  rrsets: Map<string, Date>;
  /** each delegation's last query at or below its owner, those never queried left out */
  delegations: Map<string, Date>;
  /** whether the collectors' coverage since `since` has a gap longer than the slack (or began after it) */
  coverageGap: boolean;
}

/**
 * One statement for a plan's "in use" guard: the last query of the RRsets it removes from (`query_last_seen`),
 * of the names at and below the delegations it removes, and whether every secondary expected since `since` was
 * connected all that time, to within `slackMs` (the minute the collector has not yet written). A secondary is
 * expected from its first frame until a day after its last, as `Domain.queries` reads it; analytics begun after
 * `since` is a gap too (nobody was counting then).
 */
export async function rrsetUse(
  sql: Sql,
  zoneId: number,
  wanted: { rrsets: readonly { owner: string; type: string }[]; delegations: readonly string[] },
  window: { since: Date; now: Date; slackMs: number },
): Promise<RrsetUse> {
  const served = SERVED('m."m1"', 'm."m2"').replace(/"(resolution|bucket)"/g, 'c."$1"');
  const rows = await sql.rows<{ kind: 'rrset' | 'cut' | 'gap'; owner: string; type: string; at: Date | null }>(
    `with m as (select (select "through" from "query_rollups" where "resolution" = 3600) as "m1",
                       (select "through" from "query_rollups" where "resolution" = 86400) as "m2"),
       sets as (
         select l."owner", l."type", l."at" from "query_last_seen" l
           join unnest($2::text[], $3::text[]) as w("owner", "type") on w."owner" = l."owner" and w."type" = l."type"
          where l."zone_id" = $1),
       cuts as (
         select d."owner", max(l."at") as "at" from unnest($4::text[]) as d("owner")
           join "query_last_seen" l on l."zone_id" = $1
            and (l."owner" = d."owner" or right(l."owner", length(d."owner") + 1) = '.' || d."owner")
          group by 1),
       expected as (
         select "name", greatest("first_seen", $5::timestamptz) as "from", least($6::timestamptz, "last_seen" + interval '1 day') as "to"
           from "query_secondaries" where "last_seen" + interval '1 day' > $5::timestamptz),
       covered as (
         select c."secondary", sum(least(c."covered_ms", c."resolution"::bigint * 1000,
                  extract(epoch from c."bucket" + make_interval(secs => c."resolution") - $5::timestamptz) * 1000)) as "ms"
           from "query_coverage" c, m
          where c."bucket" + make_interval(secs => c."resolution") > $5::timestamptz and ${served}
          group by 1),
       gap as (
         select coalesce((select min("first_seen") from "query_secondaries") > $5::timestamptz, true)
             or exists (select 1 from expected e left join covered c on c."secondary" = e."name"
                         where extract(epoch from e."to" - e."from") * 1000 - coalesce(c."ms", 0) > $7) as "gap")
     select 'rrset' as "kind", "owner", "type", "at" from sets
     union all select 'cut', "owner", 'NS', "at" from cuts
     union all select 'gap', '', '', null from gap where "gap"`,
    [
      zoneId,
      wanted.rrsets.map((r) => r.owner),
      wanted.rrsets.map((r) => r.type),
      wanted.delegations,
      window.since,
      window.now,
      window.slackMs,
    ],
  );
  const use: RrsetUse = { rrsets: new Map(), delegations: new Map(), coverageGap: false };
  for (const row of rows) {
    if (row.kind === 'gap') use.coverageGap = true;
    else if (row.kind === 'cut') use.delegations.set(row.owner, row.at!);
    else use.rrsets.set(`${row.owner} ${row.type}`, row.at!);
  }
  return use;
}

export interface CoverageReadRow {
  secondary: string;
  start: Date;
  covered_ms: string;
  frames: string;
  dropped: string;
  malformed: string;
}

/** each secondary's coverage in [since, until) by buckets of `step` seconds, and the secondaries known then */
export async function coverageOf(
  sql: Sql,
  window: { since: Date; until: Date; step: number },
  marks: ReadMarks,
): Promise<{ rows: CoverageReadRow[]; secondaries: { name: string; first_seen: Date; last_seen: Date }[] }> {
  const rows = await sql.rows<CoverageReadRow>(
    `select "secondary", date_bin(make_interval(secs => $3::bigint), "bucket", $1::timestamptz) as "start",
            sum(least("covered_ms", "resolution"::bigint * 1000))::bigint as "covered_ms", sum("frames")::bigint as "frames",
            sum("dropped")::bigint as "dropped", sum("malformed")::bigint as "malformed"
       from "query_coverage"
      where "bucket" >= $1 and "bucket" < $2 and ${SERVED('$4::timestamptz', '$5::timestamptz')}
      group by 1, 2`,
    [window.since, window.until, window.step, marks.hoursThrough ?? null, marks.daysThrough ?? null],
  );
  const secondaries = await sql.rows<{ name: string; first_seen: Date; last_seen: Date }>(
    `select "name", "first_seen", "last_seen" from "query_secondaries" where "first_seen" < $1 order by "name"`,
    [window.until],
  );
  return { rows, secondaries };
}
