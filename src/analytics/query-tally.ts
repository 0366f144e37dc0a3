/**
 * What the collector holds between two flushes (docs/analytics.md): the answers counted per (zone, owner, type,
 * RCODE, secondary, minute), and per secondary and minute its coverage (how long it was connected, its frames,
 * and those not counted: outside our zones, malformed, dropped). No I/O: the collector hands it answers and
 * connection time, and takes a batch to write.
 *
 * A random-subdomain flood stays bounded: a zone's minute counts at most `namesPerMinute` distinct owners, the
 * rest under one "other" owner (''). The owners are remembered for the minutes still receiving answers (a few
 * minutes back); an answer for a minute older than that is counted under "other", so that the bound holds for it
 * too.
 */
import { typeMnemonic } from '../dns/wire/message';
import type { CountRow, CoverageRow } from '../repositories/query-analytics';

export const MINUTE_MS = 60_000;
/** the owner under which the owners beyond the bound are counted */
export const OTHER_OWNER = '';
/** how many minutes back a zone's distinct owners are remembered */
const OWNER_MEMORY_MINUTES = 10;

export interface TallyBatch {
  counts: CountRow[];
  coverage: CoverageRow[];
}

const emptyCoverage = (secondary: string, minute: number): CoverageRow => ({
  secondary,
  minute,
  firstAt: minute + MINUTE_MS,
  coveredMs: 0,
  frames: 0,
  answers: 0,
  unmatched: 0,
  malformed: 0,
  dropped: 0,
});

export class QueryTally {
  private counts = new Map<string, CountRow>();
  private coverage = new Map<string, CoverageRow>();
  /** per zone and minute, the distinct owners counted so far */
  private readonly owners = new Map<string, Set<string>>();
  private newestMinute = 0;

  constructor(private readonly namesPerMinute: number) {}

  /** the rows held (counts and coverage), for the bound on what waits for a database away */
  get size(): number {
    return this.counts.size + this.coverage.size;
  }

  private coverageOf(secondary: string, minute: number, at?: number): CoverageRow {
    const key = `${secondary}\u0000${minute}`;
    let row = this.coverage.get(key);
    if (!row) this.coverage.set(key, (row = emptyCoverage(secondary, minute)));
    if (at !== undefined && at < row.firstAt) row.firstAt = at;
    return row;
  }

  /** an answer of one of our zones */
  answer(zoneId: number, owner: string, type: number, rcode: number, secondary: string, at: number): void {
    const minute = at - (at % MINUTE_MS);
    if (minute > this.newestMinute) this.newestMinute = minute;
    const zoneMinute = `${zoneId}/${minute}`;
    let seen = this.owners.get(zoneMinute);
    let counted = owner;
    if (!seen && minute < this.newestMinute - OWNER_MEMORY_MINUTES * MINUTE_MS) counted = OTHER_OWNER;
    else {
      if (!seen) this.owners.set(zoneMinute, (seen = new Set()));
      if (!seen.has(owner)) {
        if (seen.size < this.namesPerMinute) seen.add(owner);
        else counted = OTHER_OWNER;
      }
    }
    const typeName = typeMnemonic(type);
    const key = `${zoneId}\u0000${minute}\u0000${counted}\u0000${typeName}\u0000${rcode}\u0000${secondary}`;
    const row = this.counts.get(key);
    if (row) {
      row.count++;
      if (at > row.lastAt) row.lastAt = at;
    } else this.counts.set(key, { zoneId, minute, owner: counted, type: typeName, rcode, secondary, count: 1, lastAt: at });
    this.coverageOf(secondary, minute).answers++;
  }

  /** a frame received (counted or not), in the minute the collector received it */
  frame(secondary: string, at: number): void {
    this.coverageOf(secondary, at - (at % MINUTE_MS), at).frames++;
  }

  /** an answer for a name in none of our zones */
  unmatched(secondary: string, at: number): void {
    this.coverageOf(secondary, at - (at % MINUTE_MS)).unmatched++;
  }

  malformed(secondary: string, at: number): void {
    this.coverageOf(secondary, at - (at % MINUTE_MS)).malformed++;
  }

  /** the time [from, to) a secondary was connected, split over the minutes it spans */
  connected(secondary: string, from: number, to: number): void {
    for (let start = from; start < to;) {
      const minute = start - (start % MINUTE_MS);
      const end = Math.min(to, minute + MINUTE_MS);
      this.coverageOf(secondary, minute, start).coveredMs += end - start;
      start = end;
    }
  }

  /** hands over what was counted since the last take; the owners seen stay remembered for the bound */
  take(): TallyBatch {
    const batch = { counts: [...this.counts.values()], coverage: [...this.coverage.values()] };
    this.counts = new Map();
    this.coverage = new Map();
    const oldest = this.newestMinute - OWNER_MEMORY_MINUTES * MINUTE_MS;
    for (const key of this.owners.keys()) if (Number(key.slice(key.indexOf('/') + 1)) < oldest) this.owners.delete(key);
    return batch;
  }

  /** a batch whose write failed, counted again with what came since (it is written with the next) */
  putBack(batch: TallyBatch): void {
    for (const row of batch.counts) {
      const key = `${row.zoneId}\u0000${row.minute}\u0000${row.owner}\u0000${row.type}\u0000${row.rcode}\u0000${row.secondary}`;
      const held = this.counts.get(key);
      if (held) {
        held.count += row.count;
        held.lastAt = Math.max(held.lastAt, row.lastAt);
      } else this.counts.set(key, row);
    }
    for (const row of batch.coverage) {
      const held = this.coverageOf(row.secondary, row.minute, row.firstAt);
      held.coveredMs += row.coveredMs;
      held.frames += row.frames;
      held.answers += row.answers;
      held.unmatched += row.unmatched;
      held.malformed += row.malformed;
      held.dropped += row.dropped;
    }
  }

  /**
   * A batch that cannot wait any longer (the database away past the bound on what is held): its counts are lost,
   * and told as dropped in its secondaries' coverage, which is kept (small) and written later.
   */
  drop(batch: TallyBatch): number {
    let dropped = 0;
    for (const row of batch.counts) {
      this.coverageOf(row.secondary, row.minute).dropped += row.count;
      dropped += row.count;
    }
    for (const row of batch.coverage) {
      const held = this.coverageOf(row.secondary, row.minute, row.firstAt);
      held.coveredMs += row.coveredMs;
      held.frames += row.frames;
      held.answers += row.answers;
      held.unmatched += row.unmatched;
      held.malformed += row.malformed;
      held.dropped += row.dropped;
    }
    return dropped;
  }
}
