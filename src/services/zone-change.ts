import { LockMode } from '@mikro-orm/core';
import { ensureCatalogRow, lockZone, LockedZone, LockRequest, StoredRow, writeZoneChange } from '../repositories/zone-writes';
import { runSqlTransaction, SqlTransaction } from '../repositories/sql-transaction';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Settings } from '../config/settings';
import { catalogApexRecords, catalogMemberRecord } from '../dns/catalog-zone';
import { nextSerial } from '../dns/serial';
import { withSerial } from '../dns/zone-rules';
import { CatalogState, Change, Domain } from '../entities';
import type { ChangeKind, JournalRecord } from '../entities/change.entity';
import { DomainError } from '../errors/catalogue';
import { mapDatabaseError } from './db-errors';
import type { Principal } from '../auth/principal';

export const journalRecord = (record: JournalRecord): JournalRecord => ({
  owner: record.owner,
  type: record.type,
  ttl: record.ttl,
  rdata: record.rdata,
});

/**
 * One change of one zone, inside the caller's transaction. `lock` reads and locks the zone row first, so
 * that the changes of a zone are serialised (the zone rules are checked against a stable zone) and the serial
 * rises exactly once per committed change (contract-decisions §3). `commit` raises the serial, rewrites the
 * SOA and writes the journal/outbox row that the propagation worker and IXFR read, in one statement.
 */
export class ZoneChange {
  readonly removed: JournalRecord[] = [];
  readonly added: JournalRecord[] = [];
  private readonly inserts: JournalRecord[] = [];
  private readonly deleteIds: number[] = [];
  private update?: StoredRow;

  private constructor(
    private readonly tx: SqlTransaction,
    private readonly settings: Settings,
    readonly zone: LockedZone,
  ) {}

  /**
   * Locks a zone the principal may see, with its records at `owner` (or all of them) and the record
   * `targetId`; ZONE_NOT_FOUND (or RECORD_NOT_FOUND when found through a record) otherwise.
   */
  static async lock(tx: SqlTransaction, settings: Settings, principal: Principal, request: Omit<LockRequest, 'scopeUserId'>): Promise<ZoneChange> {
    const zone = await lockZone(tx, { ...request, scopeUserId: principal.kind === 'user' ? principal.userId : undefined });
    if (!zone) {
      if ('recordId' in request.zone) throw DomainError.notFound('RECORD_NOT_FOUND', 'id');
      throw DomainError.notFound('ZONE_NOT_FOUND', 'id' in request.zone ? 'id' : 'zone');
    }
    return new ZoneChange(tx, settings, zone);
  }

  insert(record: JournalRecord): void {
    this.inserts.push(record);
    this.added.push(journalRecord(record));
  }

  replace(current: StoredRow, next: JournalRecord): void {
    this.update = { ...next, id: current.id };
    this.removed.push(journalRecord(current));
    this.added.push(journalRecord(next));
  }

  remove(record: StoredRow): void {
    this.deleteIds.push(record.id);
    this.removed.push(journalRecord(record));
  }

  /**
   * Writes the change. The serial rises by the zone's policy, or becomes `serialSetByCaller` (an SOA edit or
   * a zone file that raised it); `soaRdata`/`soaTtl` replace the SOA's other fields (zone-file import).
   * Returns the ids of the inserted records.
   */
  async commit(options: { serialSetByCaller?: number; soaRdata?: string; soaTtl?: number } = {}): Promise<number[]> {
    const before = this.zone.serial;
    const after = options.serialSetByCaller ?? nextSerial(before, this.settings.serialPolicy, new Date());
    const soaEdited = this.update?.id === this.zone.soa.id;
    let soa: { id: number; rdata: string; ttl: number } | undefined;
    if (!soaEdited) {
      const current = this.zone.soa;
      soa = { id: current.id, rdata: withSerial(options.soaRdata ?? current.rdata, after), ttl: options.soaTtl ?? current.ttl };
      this.removed.push(journalRecord(current));
      this.added.push(journalRecord({ ...current, ...soa }));
    }
    return writeZoneChange(this.tx, {
      domainId: this.zone.id,
      zone: this.zone.name,
      serialBefore: before,
      serialAfter: after,
      inserts: this.inserts,
      update: this.update,
      deleteIds: this.deleteIds,
      soa,
      removed: this.removed,
      added: this.added,
    });
  }
}

/**
 * Runs one zone change in its own transaction (plain SQL on a connection of the ORM's pool, see
 * `runSqlTransaction`); constraint violations become domain errors.
 */
export async function inZoneTransaction<T>(em: EntityManager, work: (tx: SqlTransaction) => Promise<T>): Promise<T> {
  try {
    return await runSqlTransaction(em, work);
  } catch (error) {
    throw mapDatabaseError(error);
  }
}

/** Writes the journal row of a whole zone appearing or disappearing. */
export function journalWholeZone(em: EntityManager, kind: Extract<ChangeKind, 'zone-created' | 'zone-deleted'>, domain: Domain, records: JournalRecord[]): void {
  em.persist(
    em.create(Change, {
      domainId: domain.id,
      zone: domain.name,
      kind,
      serialBefore: kind === 'zone-deleted' ? domain.serial : null,
      serialAfter: domain.serial,
      removed: kind === 'zone-deleted' ? records : [],
      added: kind === 'zone-created' ? records : [],
    }),
  );
}

/**
 * Adds or removes members of the catalog zone (RFC 9432) in the caller's transaction: the catalog's serial
 * rises once, and its journal row lets secondaries follow by IXFR.
 */
export async function changeCatalog(
  em: EntityManager,
  settings: Settings,
  change: { added?: { id: number; name: string }[]; removed?: { id: number; name: string }[] },
): Promise<void> {
  const name = settings.catalogZone;
  // create the row once, then lock it: concurrent zone creates queue here for the catalog serial only
  await ensureCatalogRow(em, name);
  const state = await em.findOneOrFail(CatalogState, { name }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  const before = state.serial;
  const after = nextSerial(before, settings.serialPolicy, new Date());
  state.serial = after;
  const [oldSoa] = catalogApexRecords(before);
  const [newSoa] = catalogApexRecords(after);
  em.persist(
    em.create(Change, {
      domainId: 0,
      zone: name,
      kind: 'zone-changed',
      serialBefore: before,
      serialAfter: after,
      removed: [oldSoa, ...(change.removed ?? []).map((d) => catalogMemberRecord(d.id, d.name))],
      added: [newSoa, ...(change.added ?? []).map((d) => catalogMemberRecord(d.id, d.name))],
    }),
  );
}

