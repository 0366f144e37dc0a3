/**
 * Reading the query analytics (docs/analytics.md): a zone's answers over a window in buckets, by RCODE, type,
 * owner or secondary, with each bucket's coverage; an account's, summed over its zones; its most queried names; an
 * RRset's count and last query.
 * Coverage is data: a bucket whose secondaries were not all connected says how much of it is known, and one where
 * none was is a gap (no total), never a zero.
 *
 * A zone's traffic names every owner asked for: a key restricted to some names (docs/least-privilege.md) reads it
 * only where it may read the whole zone (mayReadZoneTraffic, asked per zone before the batched read); it reads the
 * counts of the records it may read.
 */
import { isRestricted, requireAllowed } from '../../auth/policy';
import { canSeeUser } from '../../auth/principal';
import { DomainError } from '../../errors/catalogue';
import {
  accountBucketCounts,
  accountZoneNames,
  bucketCounts,
  coarsestNeeded,
  coverageOf,
  readMarks,
  rrsetCounts,
  topOwners,
  type AccountQueryDimension,
  type QueryDimension,
  type ReadMarks,
} from '../../repositories/query-analytics';
import type { RequestContext } from '../context';
import { countsWindow } from '../zones/counts-window';

/** the most buckets one answer holds (a week of minutes is 10,080) */
export const MAX_BUCKETS = 2000;
/** the most names a top list answers */
const MAX_TOP_NAMES = 1000;
/** how long a secondary silent is still expected to send: its silence reads as a gap that long, then it is taken as retired */
const SILENT_SECONDARY_MS = 86_400_000;

const RCODE_NAMES = [
  'NOERROR',
  'FORMERR',
  'SERVFAIL',
  'NXDOMAIN',
  'NOTIMP',
  'REFUSED',
  'YXDOMAIN',
  'YXRRSET',
  'NXRRSET',
  'NOTAUTH',
  'NOTZONE',
];
export const rcodeName = (rcode: number): string => RCODE_NAMES[rcode] ?? `RCODE${rcode}`;
const rcodeOf = (name: string): number | undefined => {
  const known = RCODE_NAMES.indexOf(name.toUpperCase());
  return known >= 0 ? known : /^RCODE(\d{1,2})$/i.test(name) ? Number(name.slice(5)) : undefined;
};

export interface QueryWindowInput {
  since: Date;
  until?: Date;
  /** seconds a bucket asks for (60, 3600, 86400) */
  step: number;
}

/** a window as read: aligned on its step, the step widened to what the kept resolution allows */
export interface QueryWindow {
  since: Date;
  until: Date;
  step: number;
}

export interface QueryCountValue {
  rcode: string | null;
  type: string | null;
  /** null: not grouped by owner; '' the owners beyond ANALYTICS_NAMES_PER_MINUTE */
  owner: string | null;
  secondary: string | null;
  /** an account's counts split by ZONE: the zone's name; null or absent otherwise */
  zone?: string | null;
  count: number;
}

export interface QueryBucketValue {
  start: Date;
  /** null: a gap (no secondary was connected) */
  total: number | null;
  /** the share of the bucket the expected secondaries were connected, 0 to 1 */
  coverage: number;
  /** the expected secondaries not connected for all of the bucket */
  missing: string[];
  droppedFrames: number;
  counts: QueryCountValue[];
}

export interface ZoneQueriesValue {
  window: QueryWindow;
  buckets: QueryBucketValue[];
}

const invalid = (field: string, message: string) => new DomainError('INVALID_INPUT', message, [{ field, code: 'INVALID_INPUT', message }]);

/** each key's (a zone's, an account's) counts put in the window's buckets, a bucket no secondary covered a gap */
function bucketed(
  keys: readonly number[],
  window: QueryWindow,
  coverage: readonly Omit<QueryBucketValue, 'total' | 'counts'>[],
  rows: readonly { key: number; start: Date; count: QueryCountValue }[],
): Map<number, ZoneQueriesValue> {
  const byKey = new Map<number, Map<number, QueryCountValue[]>>();
  for (const row of rows) {
    let buckets = byKey.get(row.key);
    if (!buckets) byKey.set(row.key, (buckets = new Map<number, QueryCountValue[]>()));
    const start = row.start.getTime();
    const counts = buckets.get(start) ?? [];
    counts.push(row.count);
    buckets.set(start, counts);
  }
  return new Map(
    keys.map((key) => [
      key,
      {
        window,
        buckets: coverage.map((bucket) => {
          const counts = byKey.get(key)?.get(bucket.start.getTime()) ?? [];
          return { ...bucket, total: bucket.coverage === 0 ? null : counts.reduce((sum, count) => sum + count.count, 0), counts };
        }),
      },
    ]),
  );
}

export class QueryAnalyticsService {
  /**
   * Up to where the rollups have gone: which resolution serves which part of a window. Read once per operation
   * (the loaders keep it): one answer reads its windows alike.
   */
  readMarks(ctx: RequestContext): Promise<ReadMarks> {
    return readMarks(ctx.db);
  }

  /** the window checked and aligned: the step widened to the resolution kept for its start */
  window(input: QueryWindowInput, marks: ReadMarks): QueryWindow {
    const { until } = countsWindow(input);
    const step = Math.max(input.step, coarsestNeeded(input.since, marks));
    const since = new Date(input.since.getTime() - (input.since.getTime() % (step * 1000)));
    const buckets = Math.ceil((until.getTime() - since.getTime()) / (step * 1000));
    if (buckets > MAX_BUCKETS)
      throw new DomainError('INVALID_INPUT', `at most ${MAX_BUCKETS} buckets (${buckets} asked): a longer step or a shorter window`, [
        { field: 'step', code: 'INVALID_INPUT', message: `at most ${MAX_BUCKETS} buckets`, limit: MAX_BUCKETS },
      ]);
    return { since, until, step };
  }

  /** a zone's traffic names every owner asked for: as for its zone file, a restricted key needs to read all of it */
  mayReadZoneTraffic(ctx: RequestContext, zone: string): void {
    requireAllowed(ctx.principal.policy, { zone, access: 'read' });
  }

  /** the zones' answers in buckets (one statement for all of them, one for the coverage) */
  async zoneQueries(
    ctx: RequestContext,
    zoneIds: readonly number[],
    input: QueryWindowInput,
    by: readonly QueryDimension[],
    marks: ReadMarks,
  ): Promise<Map<number, ZoneQueriesValue>> {
    const window = this.window(input, marks);
    const [rows, coverage] = await Promise.all([bucketCounts(ctx.db, zoneIds, window, by, marks), this.coverage(ctx, window, marks)]);
    return bucketed(
      zoneIds,
      window,
      coverage,
      rows.map((row) => ({
        key: Number(row.zone_id),
        start: row.start,
        count: {
          rcode: row.rcode === null ? null : rcodeName(row.rcode),
          type: row.type,
          owner: row.owner,
          secondary: row.secondary,
          count: Number(row.count),
        },
      })),
    );
  }

  /**
   * An account's traffic names every owner of every zone it holds: the user themself (a session or a user key)
   * and the admin read it; a key restricted by rules only where it may read each of the account's zones whole, as
   * Domain.queries asks of one (one statement for the names, asked only of a restricted key).
   */
  async mayReadAccountTraffic(ctx: RequestContext, userId: number): Promise<void> {
    if (!canSeeUser(ctx.principal, userId)) throw DomainError.notFound('USER_NOT_FOUND', 'id');
    if (!isRestricted(ctx.principal.policy)) return;
    for (const zone of await accountZoneNames(ctx.db, userId)) requireAllowed(ctx.principal.policy, { zone, access: 'read' });
  }

  /**
   * The accounts' answers in buckets, summed over each one's zones (one statement for all the accounts, one for
   * the coverage, which is the collector's, as a zone's read has it). `by` never holds OWNER: split across a whole
   * account the owners are unbounded (every zone's names, a random-subdomain flood's among them); ZONE splits by
   * the zone's name instead.
   */
  async accountQueries(
    ctx: RequestContext,
    userIds: readonly number[],
    input: QueryWindowInput,
    by: readonly AccountQueryDimension[],
    marks: ReadMarks,
  ): Promise<Map<number, ZoneQueriesValue>> {
    const window = this.window(input, marks);
    const [rows, coverage] = await Promise.all([
      accountBucketCounts(ctx.db, userIds, window, by, marks),
      this.coverage(ctx, window, marks),
    ]);
    return bucketed(
      userIds,
      window,
      coverage,
      rows.map((row) => ({
        key: Number(row.user_id),
        start: row.start,
        count: {
          rcode: row.rcode === null ? null : rcodeName(row.rcode),
          type: row.type,
          owner: null,
          secondary: row.secondary,
          zone: row.zone,
          count: Number(row.count),
        },
      })),
    );
  }

  /**
   * Each bucket's coverage: the time the expected secondaries were connected over the time they were expected
   * (each from its first frame on, until a day after its last), capped at now for the bucket under way.
   */
  private async coverage(
    ctx: RequestContext,
    window: QueryWindow,
    marks: ReadMarks,
  ): Promise<Omit<QueryBucketValue, 'total' | 'counts'>[]> {
    const { rows, secondaries } = await coverageOf(ctx.db, window, marks);
    const covered = new Map(rows.map((row) => [`${row.secondary}\u0000${row.start.getTime()}`, row]));
    const now = Date.now();
    const buckets: Omit<QueryBucketValue, 'total' | 'counts'>[] = [];
    for (let start = window.since.getTime(); start < window.until.getTime(); start += window.step * 1000) {
      const end = Math.min(start + window.step * 1000, now);
      let expectedMs = 0;
      let coveredMs = 0;
      let droppedFrames = 0;
      const missing: string[] = [];
      for (const secondary of secondaries) {
        const from = Math.max(start, secondary.first_seen.getTime());
        const to = Math.min(end, secondary.last_seen.getTime() + SILENT_SECONDARY_MS);
        const row = covered.get(`${secondary.name}\u0000${start}`);
        droppedFrames += Number(row?.dropped ?? 0) + Number(row?.malformed ?? 0);
        if (to <= from) continue;
        const connected = Math.min(Number(row?.covered_ms ?? 0), to - from);
        expectedMs += to - from;
        coveredMs += connected;
        // a second's slack: the flush that counts a connection's time runs every few seconds
        if (connected < to - from - 1000) missing.push(secondary.name);
      }
      buckets.push({
        start: new Date(start),
        coverage: expectedMs === 0 ? 0 : Math.min(1, coveredMs / expectedMs),
        missing,
        droppedFrames,
      });
    }
    return buckets;
  }

  /** each zone's most queried owners; NXDOMAIN's alone with `rcode` */
  async topNames(
    ctx: RequestContext,
    zoneIds: readonly number[],
    input: Omit<QueryWindowInput, 'step'>,
    first: number,
    rcode: string | null | undefined,
    marks: ReadMarks,
  ): Promise<Map<number, { owner: string; count: number }[]>> {
    if (!Number.isInteger(first) || first < 1 || first > MAX_TOP_NAMES) throw invalid('first', `first must be from 1 to ${MAX_TOP_NAMES}`);
    // GraphQL's explicit null is no RCODE asked, as its absence is
    const code = rcode === undefined || rcode === null ? undefined : rcodeOf(rcode);
    if (rcode !== undefined && rcode !== null && code === undefined)
      throw invalid('rcode', `unknown RCODE ${rcode} (NOERROR, NXDOMAIN, … or RCODEn)`);
    const rows = await topOwners(ctx.db, zoneIds, countsWindow(input), first, code, marks);
    const byZone = new Map<number, { owner: string; count: number }[]>(zoneIds.map((id) => [id, []]));
    for (const row of rows) byZone.get(Number(row.zone_id))?.push({ owner: row.owner, count: Number(row.count) });
    return byZone;
  }

  /** the RRsets' counts over the window and their last query */
  async rrsets(
    ctx: RequestContext,
    rrsets: readonly { zoneId: number; owner: string; type: string }[],
    input: Omit<QueryWindowInput, 'step'>,
    marks: ReadMarks,
  ): Promise<{ count: number; lastQueried: Date | null }[]> {
    const rows = await rrsetCounts(ctx.db, rrsets, countsWindow(input), marks);
    const byKey = new Map(rows.map((row) => [`${row.zoneId}\u0000${row.owner}\u0000${row.type}`, row]));
    return rrsets.map((rrset) => {
      const row = byKey.get(`${rrset.zoneId}\u0000${rrset.owner}\u0000${rrset.type}`);
      return { count: row?.count ?? 0, lastQueried: row?.lastQueried ?? null };
    });
  }
}
