import { admitToCatalog, catalogMembersAmong, LockedZone, LockRequest, needsTransaction, readZone, StoredRow, writeJournalRow, writeZoneChange } from '../repositories/zone-writes';
import type { Database, Sql } from '../db/pool';
import { admitWaitingMembers, lockCatalog, takeAdmissionTurn, writeCatalogChange } from '../repositories/catalog';
import type { Settings } from '../config/settings';
import { catalogApexRecords, catalogMemberRecord } from '../dns/catalog-zone';
import { nextSerial } from '../dns/serial';
import { withSerial } from '../dns/zone-rules';
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
 * Raised inside an optimistic zone change that must be decided again: the zone changed meanwhile (try again),
 * or the change needs two writing statements (`lockNow`: only a transaction with the zone row locked will do).
 */
class DecideAgain extends Error {
  constructor(readonly lockNow: boolean) {
    super('decide the zone change again');
  }
}

/** optimistic attempts before a change takes the zone row's lock (progress under contention on one zone) */
const OPTIMISTIC_ATTEMPTS = 2;

export type ZoneChangeRequest = Omit<LockRequest, 'scopeUserId'>;

/**
 * Runs one change of one zone: reads the zone with the records the rules need, lets `decide` check the rules
 * and stage the change, and writes it with the raised serial, the new SOA and the journal/outbox row that
 * the propagation worker and IXFR read (docs/decisions.md §3: the serial rises exactly once per change).
 *
 * The zone's serial is its version. A change first runs optimistically: one read, then one write that
 * applies only if the serial is still the one read (`writeZoneChange`), each committing on its own; if
 * another change came in between, `decide` runs again. After `OPTIMISTIC_ATTEMPTS`, or for a change that
 * needs two writing statements, it runs in a transaction holding the zone row's lock. On the API's hot path
 * that is two round trips to PostgreSQL instead of four (bench/FINDINGS.md §1). Constraint violations become
 * domain errors.
 */
export async function changeZone<T>(
  db: Database,
  settings: Settings,
  principal: Principal,
  request: ZoneChangeRequest,
  decide: (change: ZoneChange) => Promise<T>,
): Promise<T> {
  // changes of one zone named by the caller queue in this process: concurrent writers of one zone (16 DNS
  // UPDATE clients, a script's parallel change sets) would otherwise spend their optimistic attempts on each
  // other and then wait on the row lock holding pooled connections (bench/RESULTS-dns-update.md)
  if ('name' in request.zone) return queuesOf(db).submit(request.zone.name, { db, settings, principal, request, decide }) as Promise<T>;
  return changeZoneNow(db, settings, principal, request, decide);
}

interface ZoneJob {
  db: Database;
  settings: Settings;
  principal: Principal;
  request: ZoneChangeRequest;
  decide: (change: ZoneChange) => Promise<unknown>;
}
type QueuedJob = ZoneJob & { resolve: (value: unknown) => void; reject: (error: unknown) => void };

/** the most queued changes of one zone written in one transaction */
const BATCH_LIMIT = 64;

/**
 * Per zone, one change runs at a time in this process. A change that finds its zone idle runs at once (the
 * optimistic path: two statements). Changes that queued meanwhile run together when it ends: one
 * transaction with the zone row locked, each change read and decided on the zone as the ones before it left
 * it (its own serial step and journal row), and one commit for all, so that a busy zone pays one WAL flush
 * per batch rather than per change. Nothing is acknowledged before its commit.
 */
class ZoneQueues {
  /** the changes waiting behind the running one, per zone; a zone is here while one of its changes runs */
  private readonly waiting = new Map<string, QueuedJob[]>();

  submit(zone: string, job: ZoneJob): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const queued = { ...job, resolve, reject };
      const queue = this.waiting.get(zone);
      if (queue) {
        queue.push(queued);
        return;
      }
      this.waiting.set(zone, []);
      void this.drain(zone, [queued]);
    });
  }

  private async drain(zone: string, first: QueuedJob[]): Promise<void> {
    let batch = first;
    while (batch.length) {
      if (batch.length === 1) await runAlone(batch[0]);
      else await runTogether(batch);
      batch = this.waiting.get(zone)!.splice(0, BATCH_LIMIT);
    }
    this.waiting.delete(zone);
  }
}

/** the queues of one database (its pool): a process serving two databases (tests) never mixes their zones */
const queuesByPool = new WeakMap<object, ZoneQueues>();
function queuesOf(db: Database): ZoneQueues {
  let queues = queuesByPool.get(db);
  if (!queues) queuesByPool.set(db, (queues = new ZoneQueues()));
  return queues;
}

async function runAlone(job: QueuedJob): Promise<void> {
  try {
    job.resolve(await changeZoneNow(job.db, job.settings, job.principal, job.request, job.decide));
  } catch (error) {
    job.reject(error);
  }
}

/**
 * A zone's rows as a batch leaves them: read once (with the row lock) for every change of the batch, then
 * kept up to date from each change's own write (its inserted ids, deleted ids, edited row, SOA and serial),
 * so a queued change costs one statement, its write, instead of a read and a write.
 */
class BatchZoneState {
  private readonly rows = new Map<number, StoredRow>();
  private serial: number;
  private soa: StoredRow;

  constructor(
    private readonly zone: LockedZone,
    private readonly read: { all: boolean; owners: Set<string>; ids: Set<number> },
  ) {
    for (const row of zone.sameOwner) this.rows.set(row.id, row);
    this.serial = zone.serial;
    this.soa = zone.soa;
  }

  /** the request's records are all in the state (else the change reads for itself) */
  covers(request: ZoneChangeRequest): boolean {
    if (this.read.all) return true;
    if (request.allRecords) return false;
    const owners = ownersNamed(request);
    if (!owners) return false;
    return owners.every((o) => this.read.owners.has(o)) && idsNamed(request).every((id) => this.read.ids.has(id));
  }

  /** the zone as `ZoneChange.read` would read it now for this request, or undefined outside the caller's scope */
  view(request: ZoneChangeRequest, scopeUserId: number | undefined): LockedZone | undefined {
    if (scopeUserId !== undefined && scopeUserId !== this.zone.userId) return undefined;
    const all = [...this.rows.values()];
    let sameOwner: StoredRow[];
    if (request.allRecords) sameOwner = all;
    else if (request.touching) {
      const owners = new Set(request.touching.owners);
      const ids = new Set(request.touching.recordIds);
      sameOwner = all.filter((r) => owners.has(r.owner) || ids.has(r.id));
    } else sameOwner = all.filter((r) => r.owner === request.owner);
    sameOwner.sort((a, b) => a.id - b.id);
    const target = request.targetId !== undefined ? this.rows.get(request.targetId) : undefined;
    return { ...this.zone, serial: this.serial, soa: this.soa, sameOwner, target };
  }

  /** what a committed change wrote */
  apply(written: NonNullable<ReturnType<ZoneChange['written']>>): void {
    for (const id of written.deletedIds) this.rows.delete(id);
    if (written.updated) {
      if (written.updated.id === this.soa.id) this.soa = written.updated;
      else this.rows.set(written.updated.id, written.updated);
    }
    for (const row of written.inserted) this.rows.set(row.id, row);
    if (written.soa) this.soa = { ...this.soa, ...written.soa };
    // the apex's records include the SOA: it must read as it now is (its serial, an edit)
    if (this.rows.has(this.soa.id)) this.rows.set(this.soa.id, this.soa);
    this.serial = written.serialAfter;
  }
}

/**
 * Several changes of one zone in one transaction: the zone row locked and the records every change of the
 * batch needs read once (`BatchZoneState`), each change decided on the zone as the ones before it left it and
 * written with its own serial step and journal row, then one commit. A change the rules refuse (a DomainError
 * from its decision, before it writes) is refused alone. A database error in a statement ends the transaction
 * with nothing written, and each change then runs on its own; an error of the commit itself leaves the outcome
 * unknown, so every change of the batch gets it (none is acknowledged, none is applied twice).
 */
async function runTogether(batch: QueuedJob[]): Promise<void> {
  const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
  let decided = false;
  try {
    await batch[0].db.transaction(async (sql) => {
      const state = await readBatchState(sql, batch);
      for (const job of batch) {
        try {
          const change = state?.covers(job.request)
            ? ZoneChange.fromView(sql, job.settings, job.principal, job.request, state.view(job.request, job.principal.kind === 'user' ? job.principal.userId : undefined))
            : await ZoneChange.read(sql, job.settings, job.principal, job.request, true);
          const value = await job.decide(change);
          const written = change.written();
          if (written) state?.apply(written);
          outcomes.push({ ok: true, value });
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          outcomes.push({ ok: false, error });
        }
      }
      decided = true;
    });
  } catch (error) {
    if (decided) {
      for (const job of batch) job.reject(mapDatabaseError(error));
      return;
    }
    for (const job of batch) await runAlone(job);
    return;
  }
  batch.forEach((job, i) => {
    const outcome = outcomes[i];
    if (outcome.ok) job.resolve(outcome.value);
    else job.reject(outcome.error);
  });
}

/** the owners a change names; undefined when it names only a record, whose owner is known once read */
function ownersNamed(request: ZoneChangeRequest): string[] | undefined {
  return request.touching?.owners ?? (request.owner !== undefined ? [request.owner] : undefined);
}

/** the record ids a change names */
function idsNamed(request: ZoneChangeRequest): number[] {
  return [...(request.touching?.recordIds ?? []), ...(request.targetId !== undefined ? [request.targetId] : [])];
}

/** locks the batch's zone and reads what all its changes touch, in one statement (none if the zone is not there) */
async function readBatchState(sql: Sql, batch: QueuedJob[]): Promise<BatchZoneState | undefined> {
  const all = batch.some((job) => job.request.allRecords);
  const owners = new Set<string>(['@']);
  const ids = new Set<number>();
  for (const { request } of batch) {
    for (const owner of ownersNamed(request) ?? []) owners.add(owner);
    for (const id of idsNamed(request)) ids.add(id);
  }
  const request = batch[0].request;
  const zone = await readZone(sql, all ? { zone: request.zone, allRecords: true } : { zone: request.zone, touching: { owners: [...owners], recordIds: [...ids] } }, true);
  return zone && new BatchZoneState(zone, { all, owners, ids });
}

async function changeZoneNow<T>(
  db: Database,
  settings: Settings,
  principal: Principal,
  request: ZoneChangeRequest,
  decide: (change: ZoneChange) => Promise<T>,
): Promise<T> {
  const attempt = async (sql: Sql, locked: boolean) => decide(await ZoneChange.read(sql, settings, principal, request, locked));
  try {
    for (let tries = 0; tries < OPTIMISTIC_ATTEMPTS; tries++) {
      try {
        return await db.connection((sql) => attempt(sql, false));
      } catch (error) {
        if (!(error instanceof DecideAgain)) throw error;
        if (error.lockNow) break;
      }
    }
    return await db.transaction((sql) => attempt(sql, true));
  } catch (error) {
    throw mapDatabaseError(error);
  }
}

/** One change of one zone, staged by the rules' caller and written by `commit`; see `changeZone`. */
export class ZoneChange {
  readonly removed: JournalRecord[] = [];
  readonly added: JournalRecord[] = [];
  private readonly inserts: JournalRecord[] = [];
  private readonly deleteIds: number[] = [];
  private update?: StoredRow;
  /** the zone's serial once the change is committed */
  serialAfter?: number;
  private insertedRows?: StoredRow[];
  private soaWritten?: { id: number; rdata: string; ttl: number };

  private constructor(
    private readonly sql: Sql,
    private readonly settings: Settings,
    private readonly locked: boolean,
    readonly zone: LockedZone,
    private readonly principal: Principal,
  ) {}

  /**
   * Reads (with `lock`, also locks) a zone the principal may see, with its records at `owner` (or all of
   * them) and the record `targetId`; ZONE_NOT_FOUND (or RECORD_NOT_FOUND when found through a record) otherwise.
   */
  static async read(sql: Sql, settings: Settings, principal: Principal, request: ZoneChangeRequest, lock: boolean | 'held'): Promise<ZoneChange> {
    // 'held': this transaction locked the zone row already (a batch of queued changes), so only read
    const zone = await readZone(sql, { ...request, scopeUserId: principal.kind === 'user' ? principal.userId : undefined }, lock === true);
    if (!zone) {
      if ('recordId' in request.zone) throw DomainError.notFound('RECORD_NOT_FOUND', 'id');
      throw DomainError.notFound('ZONE_NOT_FOUND', 'id' in request.zone ? 'id' : 'zone');
    }
    return new ZoneChange(sql, settings, lock !== false, zone, principal);
  }

  /** A change decided on a zone read earlier in the caller's transaction, which holds the zone row's lock. */
  static fromView(sql: Sql, settings: Settings, principal: Principal, request: ZoneChangeRequest, zone: LockedZone | undefined): ZoneChange {
    if (!zone) throw DomainError.notFound('ZONE_NOT_FOUND', 'zone');
    if (request.targetId !== undefined && !zone.target && 'recordId' in request.zone) throw DomainError.notFound('RECORD_NOT_FOUND', 'id');
    return new ZoneChange(sql, settings, true, zone, principal);
  }

  /** what the committed change wrote (undefined before `commit`): for a batch's state of the zone */
  written(): { serialAfter: number; inserted: StoredRow[]; deletedIds: number[]; updated?: StoredRow; soa?: { id: number; rdata: string; ttl: number } } | undefined {
    if (this.serialAfter === undefined || !this.insertedRows) return undefined;
    return { serialAfter: this.serialAfter, inserted: this.insertedRows, deletedIds: this.deleteIds, updated: this.update, soa: this.soaWritten };
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
    if (!this.locked && needsTransaction({ deleteIds: this.deleteIds, inserts: this.inserts })) throw new DecideAgain(true);
    const before = this.zone.serial;
    const after = options.serialSetByCaller ?? nextSerial(before, this.settings.serialPolicy, new Date());
    this.serialAfter = after;
    const soaEdited = this.update?.id === this.zone.soa.id;
    let soa: { id: number; rdata: string; ttl: number } | undefined;
    if (!soaEdited) {
      const current = this.zone.soa;
      soa = { id: current.id, rdata: withSerial(options.soaRdata ?? current.rdata, after), ttl: options.soaTtl ?? current.ttl };
      this.removed.push(journalRecord(current));
      this.added.push(journalRecord({ ...current, ...soa }));
    }
    const inserted = await writeZoneChange(this.sql, {
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
      author: {
        ...(this.principal.via === 'tsig' ? { tsigKeyId: this.principal.keyId } : { keyId: this.principal.keyId }),
        keyName: this.principal.keyName,
        userId: this.principal.kind === 'user' ? this.principal.userId : undefined,
      },
    });
    if (inserted) {
      this.insertedRows = this.inserts.map((record, i) => ({ ...journalRecord(record), id: inserted[i] }));
      this.soaWritten = soa;
      return inserted;
    }
    // another change raised the serial since the read; with the row locked, nothing can
    if (this.locked) throw new Error(`zone ${this.zone.name} changed while its row was locked`);
    throw new DecideAgain(false);
  }
}

/** Writes the journal row of a whole zone appearing or disappearing. */
export async function journalWholeZone(
  sql: Sql,
  kind: Extract<ChangeKind, 'zone-created' | 'zone-deleted'>,
  domain: { id: number; name: string; serial: number },
  records: JournalRecord[],
): Promise<void> {
  await writeJournalRow(sql, {
    domainId: domain.id,
    zone: domain.name,
    kind,
    serialBefore: kind === 'zone-deleted' ? domain.serial : null,
    serialAfter: domain.serial,
    removed: kind === 'zone-deleted' ? records : [],
    added: kind === 'zone-created' ? records : [],
  });
}

/**
 * Adds or removes members of the catalog zone (RFC 9432) in the caller's transaction: the catalog's serial
 * rises once, and its journal row lets secondaries follow by IXFR. A removed zone that had not joined the
 * catalog yet (`publishWaitingMembers` had not run) changes nothing in it.
 */
export async function changeCatalog(
  sql: Sql,
  settings: Settings,
  change: { added?: { id: number; name: string }[]; removed?: { id: number; name: string }[] },
): Promise<void> {
  const name = settings.catalogZone;
  // the catalog's row, created once and locked: catalog changes queue here for the catalog serial only
  const before = await lockCatalog(sql, name);
  // read under the lock: membership only changes with it held
  const members = new Set(await catalogMembersAmong(sql, (change.removed ?? []).map((d) => d.id)));
  const removed = (change.removed ?? []).filter((d) => members.has(d.id));
  const added = change.added ?? [];
  if (!removed.length && !added.length) return;
  const after = nextSerial(before, settings.serialPolicy, new Date());
  await admitToCatalog(sql, added.map((d) => d.id), after);
  const [oldSoa] = catalogApexRecords(before);
  const [newSoa] = catalogApexRecords(after);
  await writeCatalogChange(sql, {
    catalog: name,
    serialBefore: before,
    serialAfter: after,
    removed: [oldSoa, ...removed.map((d) => catalogMemberRecord(d.id, d.name))],
    added: [newSoa, ...added.map((d) => catalogMemberRecord(d.id, d.name))],
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
export async function publishWaitingMembers(transaction: <T>(work: (sql: Sql) => Promise<T>) => Promise<T>, settings: Settings): Promise<number> {
  let total = 0;
  for (;;) {
    const admitted = await transaction(async (sql) => {
      if (!(await takeAdmissionTurn(sql, settings.catalogZone))) return 0;
      const before = await lockCatalog(sql, settings.catalogZone);
      const after = nextSerial(before, settings.serialPolicy, new Date());
      const members = await admitWaitingMembers(sql, after, ADMIT_BATCH);
      if (!members.length) return 0;
      const [oldSoa] = catalogApexRecords(before);
      const [newSoa] = catalogApexRecords(after);
      await writeCatalogChange(sql, {
        catalog: settings.catalogZone,
        serialBefore: before,
        serialAfter: after,
        removed: [oldSoa],
        added: [newSoa, ...members.map((d) => catalogMemberRecord(d.id, d.name))],
      });
      return members.length;
    });
    total += admitted;
    if (admitted < ADMIT_BATCH) return total;
  }
}
