import type { Database, Sql } from '../../db/pool';
import {
  admitMember,
  admitWaitingMembers,
  catalogZonesOf,
  lockCatalog,
  setsWithWaitingMembers,
  takeAdmissionTurn,
  unlistMembers,
  writeCatalogChange,
} from '../../repositories/catalog';
import { catalogsListing, completedDepartures, endDeparture, moveZoneRow, zoneSetState } from '../../repositories/nameserver-sets';
import {
  failureExpiresListedZone,
  isExpired,
  promoteSecondary,
  recordExpired,
  recordRefreshed,
  recordRefreshFailed,
  SecondaryState,
} from '../../repositories/secondary-zones';
import type { Settings } from '../../config/settings';
import { catalogApexRecords, catalogMemberRecord } from '../../dns/catalog-zone';
import { nextSerial } from '../../dns/serial';
import type { JournalRecord } from '../../entities/change.entity';
import { logger } from '../../logger';

/**
 * The catalog zone's membership (RFC 9432), written once: a zone joins the catalog by admission
 * (`publishWaitingMembers`, after its create committed) and leaves it by `removeFromCatalog` (in its
 * deletion's transaction); a secondary zone also leaves it when it expires and joins it again when it is served
 * again (`withServedMembership`, in the transaction of that state change). All step the catalog's serial with
 * `catalogStep`, the one place its serial and journal records are decided.
 */

/**
 * One step of the catalog: its serial rises once, and its journal row names the old and new SOA with the
 * member PTRs that left and joined (RFC 9432 §4.3), so that secondaries follow by IXFR (RFC 1995 §4).
 */
export function catalogStep(settings: Settings, before: number): CatalogStep {
  const serialAfter = nextSerial(before, settings.serialPolicy, new Date());
  return {
    serialBefore: before,
    serialAfter,
    journal: (members) => ({
      removed: [catalogApexRecords(before)[0], ...(members.removed ?? []).map((d) => catalogMemberRecord(d.id, d.name))],
      added: [catalogApexRecords(serialAfter)[0], ...(members.added ?? []).map((d) => catalogMemberRecord(d.id, d.name))],
    }),
  };
}

export interface CatalogStep {
  serialBefore: number;
  serialAfter: number;
  /** the step's journal records: the SOA at both serials, and the PTRs of the members that left and joined */
  journal(members: { added?: { id: number; name: string }[]; removed?: { id: number; name: string }[] }): {
    removed: JournalRecord[];
    added: JournalRecord[];
  };
}

/**
 * Removes zones from every catalog that lists them (their set's, and the one a moved zone still leaves: docs/
 * transfers.md, «Nameserver sets») in the caller's transaction (their deletion's): each catalog's serial rises
 * once for all of them. A zone that had not joined its catalog yet (`publishWaitingMembers` had not run)
 * changes nothing in it.
 */
export async function removeFromCatalog(sql: Sql, settings: Settings, zones: { id: number; name: string }[]): Promise<void> {
  const ids = zones.map((d) => d.id);
  const locked = await lockCatalogsOf(sql, settings, ids);
  await writeRemovals(sql, settings, locked, zones);
}

/** the catalogs of some zones, locked: their serials, each set's catalog name, and the listing read under the locks */
interface LockedCatalogs {
  serials: Map<string, number>;
  names: Map<number, string>;
  listing: { domainId: number; setId: number; member: boolean }[];
}

/**
 * Locks every catalog that lists the zones or that they would join (their sets'), in name order (as a move
 * locks them), and reads the listing under the locks: membership only changes with them held. A move that
 * committed between the look-up and the locks shows in the look-up again under them, and its catalog is locked too.
 */
async function lockCatalogsOf(sql: Sql, settings: Settings, ids: number[]): Promise<LockedCatalogs> {
  const serials = new Map<string, number>();
  let listing = await catalogsListing(sql, ids);
  for (;;) {
    const names = await catalogNamesOf(sql, settings, [...new Set(listing.map((l) => l.setId))]);
    const missing = [...new Set(names.values())].filter((name) => !serials.has(name)).sort();
    if (!missing.length) return { serials, names, listing };
    // the catalog's row, created once and locked: catalog changes queue here for the catalog serial only
    for (const name of missing) serials.set(name, await lockCatalog(sql, name));
    listing = await catalogsListing(sql, ids);
  }
}

/** the zones leave every locked catalog that lists them: one catalog step each */
async function writeRemovals(sql: Sql, settings: Settings, locked: LockedCatalogs, zones: { id: number; name: string }[]): Promise<void> {
  for (const [setId, name] of locked.names) {
    const removedIds = new Set(locked.listing.filter((l) => l.setId === setId && l.member).map((l) => l.domainId));
    const removed = zones.filter((d) => removedIds.has(d.id));
    if (!removed.length) continue;
    const step = catalogStep(settings, locked.serials.get(name)!);
    await writeCatalogChange(sql, {
      catalog: name,
      serialBefore: step.serialBefore,
      serialAfter: step.serialAfter,
      ...step.journal({ removed }),
    });
    locked.serials.set(name, step.serialAfter);
  }
}

/**
 * A change of a secondary zone's state that may stop or resume serving it (docs/transfers.md, «Secondary
 * zones»), with its catalog membership following in the same transaction (the caller's), so that the fleet
 * serves what the primary serves: `change` runs with the catalogs that list the zone, or that it would join,
 * locked first (then it takes the zone's rows: the order admission, moves and deletions take), and then
 * - an expired zone that a catalog lists leaves every catalog that lists it (one catalog step each; RFC 9432
 *   §5.3: each catalog consumer removes the member and stops serving it); a move under way ends with it
 * - a zone served again that is not a member (it had expired) joins its set's catalog (one catalog step)
 * A pending zone (never taken) keeps its membership: the catalog lists it, as after its create.
 */
async function withServedMembership<T>(
  sql: Sql,
  settings: Settings,
  zone: { id: number; name: string },
  change: () => Promise<T>,
): Promise<T> {
  const locked = await lockCatalogsOf(sql, settings, [zone.id]);
  const result = await change();
  if (await isExpired(sql, zone.id)) {
    if (!locked.listing.some((l) => l.member)) return result;
    await unlistMembers(sql, [zone.id]);
    await writeRemovals(sql, settings, locked, [zone]);
    return result;
  }
  const current = await zoneSetState(sql, zone.id);
  if (!current) return result;
  const name = locked.names.get(current.setId)!;
  const step = catalogStep(settings, locked.serials.get(name)!);
  const joined = await admitMember(sql, zone.id, step.serialAfter);
  if (joined) {
    await writeCatalogChange(sql, {
      catalog: name,
      serialBefore: step.serialBefore,
      serialAfter: step.serialAfter,
      ...step.journal({ added: [joined] }),
    });
    locked.serials.set(name, step.serialAfter);
  }
  return result;
}

/**
 * A secondary zone's refresh that failed at every primary (`recordRefreshFailed`), in the caller's transaction;
 * one that leaves the zone expired takes it out of the catalogs that list it in that transaction
 * (`withServedMembership`). Only then are the catalogs locked: an ordinary failure takes no catalog lock.
 */
export async function recordFailedRefresh(
  sql: Sql,
  settings: Settings,
  zone: { id: number; name: string },
  error: string,
  retry: number,
): Promise<SecondaryState | undefined> {
  if (!(await failureExpiresListedZone(sql, zone.id))) return recordRefreshFailed(sql, zone.id, error, retry);
  return withServedMembership(sql, settings, zone, () => recordRefreshFailed(sql, zone.id, error, retry));
}

/**
 * A served secondary zone past its EXPIRE (`recordExpired`), whether or not a refresh of it is under way, in the
 * caller's transaction: it is no longer served and leaves the catalogs that list it in that transaction
 * (`withServedMembership`, catalogs locked first, as for a failed refresh that expires it). Answers whether it
 * expired now (false: a refresh that worked or another worker came first; then nothing changes).
 */
export function expireOverdueSecondary(sql: Sql, settings: Settings, zone: { id: number; name: string }): Promise<boolean> {
  return withServedMembership(sql, settings, zone, () => recordExpired(sql, zone.id));
}

/**
 * A secondary zone's refresh that worked (`recordRefreshed`), in the caller's transaction; an expired zone,
 * served again, rejoins its catalog in that transaction (`withServedMembership`). Only then are the catalogs
 * locked: an ordinary refresh takes no catalog lock.
 */
export async function recordWorkingRefresh(
  sql: Sql,
  settings: Settings,
  zone: { id: number; name: string },
  timers: { refresh: number; expire: number },
  transferred: boolean,
): Promise<void> {
  if (!(await isExpired(sql, zone.id))) {
    await recordRefreshed(sql, zone.id, timers, transferred);
    return;
  }
  await withServedMembership(sql, settings, zone, () => recordRefreshed(sql, zone.id, timers, transferred));
}

/**
 * A secondary zone's promotion to a primary zone of ours (`promoteSecondary`), in the caller's transaction: an
 * expired zone is served again and rejoins its catalog in it (`withServedMembership`). False when it is not a
 * secondary zone.
 */
export function promoteToPrimary(sql: Sql, settings: Settings, zone: { id: number; name: string }): Promise<boolean> {
  return withServedMembership(sql, settings, zone, () => promoteSecondary(sql, zone.id));
}

/** each set's catalog name: its own, or CATALOG_ZONE for the default set */
async function catalogNamesOf(sql: Sql, settings: Settings, setIds: number[]): Promise<Map<number, string>> {
  const names = await catalogZonesOf(sql, setIds);
  return new Map(setIds.map((id) => [id, names.get(id) ?? settings.catalogZone]));
}

/**
 * Moves a zone to another nameserver set (docs/transfers.md, «Nameserver sets»), in one transaction: it joins
 * the new set's catalog now (that catalog's serial rises, its journal row adds the PTR) and stays in the old
 * one's (a departure row) until the new set's secondaries serve it (`endServedDepartures`): no moment where no
 * set lists it. A zone still waiting to join a catalog just changes set; its admission puts it in the new one.
 * Both catalogs are locked in name order, then the zone row (the order admission takes them in).
 * Answers false when the zone was not in `from` any more (moved or deleted meanwhile).
 */
export async function moveToSet(
  sql: Sql,
  settings: Settings,
  move: { domainId: number; name: string; from: number; to: number; servers: string[] },
): Promise<boolean> {
  const names = await catalogNamesOf(sql, settings, [move.from, move.to]);
  const serials = new Map<string, number>();
  for (const name of [...new Set(names.values())].sort()) serials.set(name, await lockCatalog(sql, name));
  const moved = await moveZoneRow(sql, move);
  if (!moved) return false;
  if (moved.member) {
    const name = names.get(move.to)!;
    const step = catalogStep(settings, serials.get(name)!);
    await writeCatalogChange(sql, {
      catalog: name,
      serialBefore: step.serialBefore,
      serialAfter: step.serialAfter,
      ...step.journal({ added: [{ id: move.domainId, name: moved.name }] }),
    });
  }
  return true;
}

/**
 * Ends the departures whose zone the new set's secondaries all serve: the zone leaves its old set's catalog
 * (one catalog step each, in its own transaction). Run by the worker on every poll; returns how many ended.
 */
export async function endServedDepartures(
  transaction: <T>(work: (sql: Sql) => Promise<T>) => Promise<T>,
  settings: Settings,
  defaultServers: string[],
): Promise<number> {
  const due = await transaction((sql) => completedDepartures(sql, defaultServers));
  let ended = 0;
  for (const departure of due) {
    const done = await transaction(async (sql) => {
      const name = (await catalogNamesOf(sql, settings, [departure.setId])).get(departure.setId)!;
      const before = await lockCatalog(sql, name);
      if (!(await endDeparture(sql, departure.domainId, departure.setId))) return false;
      const step = catalogStep(settings, before);
      await writeCatalogChange(sql, {
        catalog: name,
        serialBefore: step.serialBefore,
        serialAfter: step.serialAfter,
        ...step.journal({ removed: [{ id: departure.domainId, name: departure.name }] }),
      });
      return true;
    });
    if (done) ended += 1;
  }
  return ended;
}

/** zones admitted to the catalog per transaction (and per journal row) */
const ADMIT_BATCH = 5000;

/**
 * Admits the committed zones that wait to join the catalog, all in one catalog change: one serial, one
 * journal row listing their PTRs (RFC 9432 §4.3; RFC 1995 §4 for IXFR). Zone creates do not take the
 * catalog's lock in their own transaction (that serialised every create until its commit): a zone
 * commits first, then joins the catalog here, so a secondary never sees a member whose zone is not there.
 * Concurrent callers queue on the catalog's lock, and the first admits everything committed so far, so the
 * lock is held for one short transaction per batch rather than per create. Returns how many joined.
 */
export async function publishWaitingMembers(
  transaction: <T>(work: (sql: Sql) => Promise<T>) => Promise<T>,
  settings: Settings,
): Promise<number> {
  let total = 0;
  // each nameserver set's zones join that set's catalog (docs/transfers.md, «Nameserver sets»)
  for (const waiting of await transaction((sql) => setsWithWaitingMembers(sql)))
    total += await admitToSetCatalog(transaction, settings, waiting.setId, waiting.catalogZone ?? settings.catalogZone);
  return total;
}

async function admitToSetCatalog(
  transaction: <T>(work: (sql: Sql) => Promise<T>) => Promise<T>,
  settings: Settings,
  setId: number,
  catalog: string,
): Promise<number> {
  let total = 0;
  for (;;) {
    const admitted = await transaction(async (sql) => {
      if (!(await takeAdmissionTurn(sql, catalog, setId))) return 0;
      const before = await lockCatalog(sql, catalog);
      const step = catalogStep(settings, before);
      const members = await admitWaitingMembers(sql, setId, step.serialAfter, ADMIT_BATCH);
      if (!members.length) return 0;
      await writeCatalogChange(sql, {
        catalog,
        serialBefore: step.serialBefore,
        serialAfter: step.serialAfter,
        ...step.journal({ added: members }),
      });
      return members.length;
    });
    total += admitted;
    if (admitted < ADMIT_BATCH) return total;
  }
}

/**
 * Catalog admissions of this process, coalesced: at most one runs, and callers that come meanwhile share the
 * next one, which starts after the running one and so admits every zone committed before they asked. Under
 * concurrent creates that is a couple of short transactions per batch of zones instead of one per zone.
 * A failure (the database went away after the zone committed) is logged, not answered: the zone exists, and
 * the worker admits waiting zones on every poll (worker.ts).
 */
export class CatalogAdmissions {
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  run(db: Database, settings: Settings): Promise<void> {
    if (!this.running) {
      this.running = publishWaitingMembers((work) => db.transaction(work), settings)
        .then(
          () => undefined,
          (error) => {
            logger.warn({ err: error }, 'catalog: admitting new zones failed; the worker will admit them');
          },
        )
        .finally(() => {
          this.running = undefined;
        });
      return this.running;
    }
    if (!this.next) {
      this.next = this.running.then(() => {
        this.next = undefined;
        return this.run(db, settings);
      });
    }
    return this.next;
  }
}
