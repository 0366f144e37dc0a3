import type { JournalRecord } from '../../entities/change.entity';
import { recordIdentity } from '../../dns/record';
import { DomainError } from '../../errors/catalogue';
import { countZoneHistory, HistoryRow, journalBetween, rowAtSerial, zoneChangeAt, zoneHistory } from '../../repositories/history';
import type { RequestContext } from '../context';
import type { ZoneChangesResult, ZoneChangesService, ZoneChangeSpec } from './zone-changes.service';
import { isRestricted, readsRecord } from '../../auth/policy';
import type { PageRequest } from '../../repositories/read-model';

export type { HistoryRow };

/** a restricted key sees in the history only the records its rules let it read (docs/least-privilege.md) */
function readable<T extends { owner: string; type: string }>(ctx: RequestContext, zone: string, records: T[]): T[] {
  const policy = ctx.principal.policy;
  return isRestricted(policy) ? records.filter((r) => readsRecord(policy, zone, r.owner, r.type)) : records;
}

export interface ZoneDiff {
  fromSerial: number;
  toSerial: number;
  added: JournalRecord[];
  removed: JournalRecord[];
}

/** a record with its TTL: a TTL change is journalled as a removal and an addition, which must not cancel */
const identity = (r: JournalRecord) => recordIdentity(r, { withTtl: true });

/** a change as the caller may see it: a restricted key only the records (and findings) its rules let it read */
function asSeenBy(ctx: RequestContext, zone: string, row: HistoryRow): HistoryRow {
  if (!isRestricted(ctx.principal.policy)) return row;
  return {
    ...row,
    added: readable(ctx, zone, row.added),
    removed: readable(ctx, zone, row.removed),
    // a finding, a comment name an RRset: one the key may not read is not shown either
    findings: readable(ctx, zone, row.findings),
    comments: readable(ctx, zone, row.comments),
  };
}

/**
 * The change history of a zone, read from the journal every change writes (the same rows IXFR serves):
 * who changed what and when, the difference between two serials, and a revert as a new change set. How long
 * rows are kept: HISTORY_KEEP_DAYS and HISTORY_KEEP_ROWS (the worker prunes); a serial older than that is
 * HISTORY_EXPIRED (410), as IXFR then falls back to AXFR.
 */
export class HistoryService {
  constructor(private readonly zoneChanges: ZoneChangesService) {}

  list(ctx: RequestContext, zone: { id: number; name: string }, page: PageRequest): Promise<HistoryRow[]> {
    return ctx.db.connection((sql) => zoneHistory(sql, zone, page)).then((rows) => rows.map((row) => asSeenBy(ctx, zone.name, row)));
  }

  /**
   * The change that left the zone at `serial`, as `list` shows it (a change set's own entry, read after it was
   * written: ZoneChangesResult.change); undefined when the journal keeps none (a set that changed nothing).
   * `commentsOnly`: the change of comments alone at that serial (a set that changed only comments steps none).
   */
  async changeAt(
    ctx: RequestContext,
    zone: { id: number; name: string },
    serial: number,
    commentsOnly = false,
  ): Promise<HistoryRow | undefined> {
    const row = await ctx.db.connection((sql) => zoneChangeAt(sql, zone, serial, commentsOnly));
    return row && asSeenBy(ctx, zone.name, row);
  }

  count(ctx: RequestContext, zone: { id: number; name: string }): Promise<number> {
    return ctx.db.connection((sql) => countZoneHistory(sql, zone));
  }

  /**
   * The records removed and added between two serials of the zone (either order), the SOA aside (its serial
   * steps with every change). A record whose TTL changed is removed and added.
   */
  async diff(
    ctx: RequestContext,
    zone: { id: number; name: string; serial: number },
    fromSerial: number,
    toSerial: number,
  ): Promise<ZoneDiff> {
    return ctx.db.connection(async (sql) => {
      const fromId = await this.rowAt(sql, zone, fromSerial, 'fromSerial');
      const toId = await this.rowAt(sql, zone, toSerial, 'toSerial');
      const forward = fromId <= toId;
      const rows = await journalBetween(sql, zone, Math.min(fromId, toId), Math.max(fromId, toId));
      const folded = fold(rows);
      const net = { added: readable(ctx, zone.name, folded.added), removed: readable(ctx, zone.name, folded.removed) };
      return forward
        ? { fromSerial, toSerial, added: net.added, removed: net.removed }
        : { fromSerial, toSerial, added: net.removed, removed: net.added };
    });
  }

  /**
   * Brings the zone back to its records at `toSerial`: a new change set (rules checked, the serial rises). A
   * record enabled since is disabled again (kept, as it was), not deleted; one disabled since is served again
   * (an addition of a kept record enables it).
   */
  async revert(
    ctx: RequestContext,
    zone: { id: number; name: string; serial: number },
    toSerial: number,
    expectSerial?: number,
  ): Promise<ZoneChangesResult> {
    return this.zoneChanges.apply(ctx, await this.revertChanges(ctx, zone, toSerial, expectSerial));
  }

  /**
   * A revert as the change set it is (`revert` applies it; an edge that may propose it instead, on a zone under
   * review, hands it to the change requests: docs/changes.md, «Review»)
   */
  async revertChanges(
    ctx: RequestContext,
    zone: { id: number; name: string; serial: number },
    toSerial: number,
    expectSerial?: number,
  ): Promise<{ zone: string; expectSerial: number; changes: ZoneChangeSpec[] }> {
    const back = await this.diff(ctx, zone, zone.serial, toSerial);
    if (back.added.length === 0 && back.removed.length === 0) {
      throw DomainError.invalid('toSerial', `toSerial: the zone already has the records it had at serial ${toSerial}`, 'NOTHING_TO_REVERT');
    }
    return {
      zone: zone.name,
      expectSerial: expectSerial ?? zone.serial,
      changes: [
        ...back.removed.map((r) => ({
          kind: r.toggled ? ('DISABLE' as const) : ('REMOVE' as const),
          owner: r.owner,
          type: r.type,
          rdata: r.rdata,
        })),
        ...back.added.map((r) => ({ kind: 'ADD' as const, owner: r.owner, type: r.type, rdata: r.rdata, ttl: r.ttl })),
      ],
    };
  }

  /** the journal row that left the zone at `serial`; the zone's current serial always counts (its last row) */
  private async rowAt(
    sql: Parameters<typeof rowAtSerial>[0],
    zone: { id: number; name: string },
    serial: number,
    field: string,
  ): Promise<number> {
    const id = await rowAtSerial(sql, zone, serial);
    if (id === undefined) {
      throw new DomainError('HISTORY_EXPIRED', `The kept history of zone ${zone.name} has no serial ${serial}`, [
        {
          field,
          code: 'HISTORY_EXPIRED',
          message: `${field}: no change in the kept history left the zone at serial ${serial} (HISTORY_KEEP_DAYS, HISTORY_KEEP_ROWS)`,
        },
      ]);
    }
    return id;
  }
}

/** the net effect of journal rows in order: what was added and is still there, what was there and is gone */
function fold(rows: HistoryRow[]): { added: JournalRecord[]; removed: JournalRecord[] } {
  const added = new Map<string, JournalRecord>();
  const removed = new Map<string, JournalRecord>();
  for (const row of rows) {
    for (const r of row.removed) {
      if (r.type === 'SOA') continue;
      if (added.has(identity(r))) added.delete(identity(r));
      else removed.set(identity(r), r);
    }
    for (const r of row.added) {
      if (r.type === 'SOA') continue;
      if (removed.has(identity(r))) removed.delete(identity(r));
      else added.set(identity(r), r);
    }
  }
  return { added: [...added.values()], removed: [...removed.values()] };
}
