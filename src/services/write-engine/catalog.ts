import { catalogMembersAmong } from '../../repositories/zone-writes';
import type { Database, Sql } from '../../db/pool';
import { admitWaitingMembers, lockCatalog, takeAdmissionTurn, writeCatalogChange } from '../../repositories/catalog';
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
 * Removes zones from the catalog in the caller's transaction (their deletion's): the catalog's serial rises
 * once for all of them. A zone that had not joined the catalog yet (`publishWaitingMembers` had not run)
 * changes nothing in it.
 */
export async function removeFromCatalog(sql: Sql, settings: Settings, zones: { id: number; name: string }[]): Promise<void> {
  const name = settings.catalogZone;
  // the catalog's row, created once and locked: catalog changes queue here for the catalog serial only
  const before = await lockCatalog(sql, name);
  // read under the lock: membership only changes with it held
  const members = new Set(
    await catalogMembersAmong(
      sql,
      zones.map((d) => d.id),
    ),
  );
  const removed = zones.filter((d) => members.has(d.id));
  if (!removed.length) return;
  const step = catalogStep(settings, before);
  await writeCatalogChange(sql, {
    catalog: name,
    serialBefore: step.serialBefore,
    serialAfter: step.serialAfter,
    ...step.journal({ removed }),
  });
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
  for (;;) {
    const admitted = await transaction(async (sql) => {
      if (!(await takeAdmissionTurn(sql, settings.catalogZone))) return 0;
      const before = await lockCatalog(sql, settings.catalogZone);
      const step = catalogStep(settings, before);
      const members = await admitWaitingMembers(sql, step.serialAfter, ADMIT_BATCH);
      if (!members.length) return 0;
      await writeCatalogChange(sql, {
        catalog: settings.catalogZone,
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
