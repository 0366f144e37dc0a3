import type { Database, Sql } from '../../db/pool';
import {
  admitWaitingMembers,
  catalogZonesOf,
  lockCatalog,
  setsWithWaitingMembers,
  takeAdmissionTurn,
  writeCatalogChange,
} from '../../repositories/catalog';
import { catalogsListing, completedDepartures, endDeparture, moveZoneRow } from '../../repositories/nameserver-sets';
import type { Settings } from '../../config/settings';
import { catalogApexRecords, catalogMemberRecord } from '../../dns/catalog-zone';
import { nextSerial } from '../../dns/serial';
import type { JournalRecord } from '../../entities/change.entity';
import { logger } from '../../logger';

/**
 * The catalog zone's membership (RFC 9432), written once: a zone joins the catalog only by admission
 * (`publishWaitingMembers`, after its create committed) and leaves it only by `removeFromCatalog` (in its
 * deletion's transaction). Both step the catalog's serial with `catalogStep`, the one place its serial and
 * journal records are decided.
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
 * changes nothing in it. The catalogs are locked in name order (as a move locks them); a move that committed
 * between the look-up and the locks shows in the look-up again under them, and its catalog is locked too.
 */
export async function removeFromCatalog(sql: Sql, settings: Settings, zones: { id: number; name: string }[]): Promise<void> {
  const ids = zones.map((d) => d.id);
  const locked = new Map<string, number>();
  let listing = await catalogsListing(sql, ids);
  for (;;) {
    const names = await catalogNamesOf(sql, settings, [...new Set(listing.map((l) => l.setId))]);
    const missing = [...new Set(names.values())].filter((name) => !locked.has(name)).sort();
    if (!missing.length) {
      for (const [setId, name] of names) {
        const removedIds = new Set(listing.filter((l) => l.setId === setId && l.member).map((l) => l.domainId));
        const removed = zones.filter((d) => removedIds.has(d.id));
        if (!removed.length) continue;
        const step = catalogStep(settings, locked.get(name)!);
        await writeCatalogChange(sql, {
          catalog: name,
          serialBefore: step.serialBefore,
          serialAfter: step.serialAfter,
          ...step.journal({ removed }),
        });
        locked.set(name, step.serialAfter);
      }
      return;
    }
    // the catalog's row, created once and locked: catalog changes queue here for the catalog serial only
    for (const name of missing) locked.set(name, await lockCatalog(sql, name));
    // read under the locks: membership only changes with them held
    listing = await catalogsListing(sql, ids);
  }
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
class CatalogAdmissions {
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

/** the admissions of one database (its pool), as the zone queues */
const admissionsByPool = new WeakMap<object, CatalogAdmissions>();
export function admitNewZones(db: Database, settings: Settings): Promise<void> {
  let admissions = admissionsByPool.get(db);
  if (!admissions) admissionsByPool.set(db, (admissions = new CatalogAdmissions()));
  return admissions.run(db, settings);
}
