import type { Sql } from '../../db/pool';
import { LockedZone, readZone, StoredRow } from '../../repositories/zone-writes';
import { DomainError } from '../../errors/catalogue';
import { mapDatabaseError } from '../db-errors';
import { isDatabaseUnavailable } from '../../db/availability';
import { changeZoneNow, EngineParts, JOIN_QUEUE, runOptimistically, ZoneJob } from './optimistic';
import { WrittenChange, ZoneChange, ZoneChangeRequest } from './staging';
import { gatesOf } from './writers';

/**
 * The per-zone queue. Per zone, one change runs at a time in this process. A change that finds its zone idle
 * runs at once (the optimistic path: two statements). Changes that queued meanwhile run together when it
 * ends: one transaction with the zone row locked, each change read and decided on the zone as the ones before
 * it left it (its own serial step and journal row), and one commit for all, so that a busy zone pays one WAL
 * flush per batch rather than per change. Nothing is acknowledged before its commit. Concurrent writers of one
 * zone (16 DNS UPDATE clients, a script's parallel change sets) would otherwise spend their optimistic attempts
 * on each other and then wait on the row lock holding pooled connections (bench/RESULTS-dns-update.md).
 *
 * The queue's key is the zone's id, whatever the caller named: a zone by name (change sets, imports, DNS
 * UPDATE, record creates), by id, or as the zone of a record (record edits and deletes). The id is learned,
 * never looked up: every read of a zone tells its id and name, and the record a change was asked through; a
 * write tells the records it inserted (up to INSERTS_REMEMBERED of them); the queue remembers them
 * (`ZoneKeys`). A change whose key is known queues before it reads. A change whose key is not known yet (the
 * first edit of a record this process has not seen, or one of a bulk set's) runs its first optimistic read, which
 * learns the key, then takes its zone's turn: if the zone is idle it goes on with that read (nothing spent); if
 * a change of the zone is running, it drops its read and joins the queue. So every change of a zone is
 * serialised in the process, at no extra statement; a key learned wrong (a zone deleted and created again by
 * another process) only costs the batching, never correctness: the batch reads the zone by its key, and a
 * change that finds itself outside that zone reads its own, and the serial guards every write.
 */

/** the most queued changes of one zone written in one transaction */
const BATCH_LIMIT = 64;
/** the most zone names and record ids remembered per kind, then forgotten at once (a cache, not a register) */
const KEYS_LIMIT = 100_000;
/**
 * the most records a change may insert for their ids to be remembered: a record created alone hands its id to
 * its client, which edits it by that id next; a bulk change set's answer names no ids (GraphQL's and REST's
 * ChangedRecord, the PowerDNS API's 204, DNS UPDATE), so remembering a thousand of them only filled the cache,
 * and their first edit learns its zone by its first read, at no extra statement
 */
const INSERTS_REMEMBERED = 16;

/** a job the queue runs alone, outside any batch: a zone's deletion */
export interface WholeZoneJob<T = unknown> {
  wholeZone: string;
  run: () => Promise<T>;
}
type Job = ZoneJob | WholeZoneJob;
type QueuedJob = Job & { resolve: (value: unknown) => void; reject: (error: unknown) => void };

/** a job as its caller named the zone (`{ recordId }`, `{ name }`, `{ id }`), or the whole-zone job's kind */
export type JobLabel = ZoneChangeRequest['zone'] | { wholeZone: string };

/**
 * What the queue did for a zone (tests, and whoever watches): a job `queued` behind a running one, or a run:
 * one job alone, or a batch `together` in one transaction.
 */
export type QueueRun = { zoneId: number; queued: JobLabel } | { zoneId: number; together: boolean; jobs: JobLabel[] };

const labelOf = (job: Job): JobLabel => (isWholeZone(job) ? { wholeZone: job.wholeZone } : job.request.zone);

const isWholeZone = (job: Job): job is WholeZoneJob => 'wholeZone' in job;

/** a job no batch takes: a whole-zone job, or a change whose writer is not batched (the zone's rules: writers.ts) */
const runsAlone = (job: Job): boolean => isWholeZone(job) || !gatesOf(job.request.writer).batched;

/** the zone ids this process has learned, per zone name and per record id */
class ZoneKeys {
  private readonly byName = new Map<string, number>();
  private readonly byRecord = new Map<number, number>();

  of(zone: ZoneChangeRequest['zone']): number | undefined {
    if ('id' in zone) return zone.id;
    if ('name' in zone) return this.byName.get(zone.name);
    return this.byRecord.get(zone.recordId);
  }

  learnZone(zone: { id: number; name: string }): void {
    if (this.byName.size >= KEYS_LIMIT) this.byName.clear();
    this.byName.set(zone.name, zone.id);
  }

  learnRecord(zoneId: number, recordId: number): void {
    if (this.byRecord.size >= KEYS_LIMIT) this.byRecord.clear();
    this.byRecord.set(recordId, zoneId);
  }

  /** the records a change inserted, when few enough (INSERTS_REMEMBERED) */
  learnInserted(zoneId: number, inserted: readonly { id: number }[] | undefined): void {
    if (!inserted || inserted.length > INSERTS_REMEMBERED) return;
    for (const row of inserted) this.learnRecord(zoneId, row.id);
  }

  forgetZone(zone: { id: number; name: string }): void {
    if (this.byName.get(zone.name) === zone.id) this.byName.delete(zone.name);
  }
}

export class ZoneQueues {
  readonly keys = new ZoneKeys();
  /** the changes waiting behind the running one, per zone id; a zone is here while one of its changes runs */
  private readonly waiting = new Map<number, QueuedJob[]>();
  private readonly watchers = new Set<(run: QueueRun) => void>();

  constructor(private readonly parts: EngineParts) {}

  /** Runs a change of a zone's records in its zone's turn. */
  run<T>(job: ZoneJob<T>): Promise<T> {
    const key = this.keys.of(job.request.zone);
    if (key !== undefined) return this.submit(key, job) as Promise<T>;
    return this.runLearning(job);
  }

  /** Runs a whole-zone job (a deletion) in the zone's turn, when the zone's id is known; else at once. */
  runWholeZone<T>(zone: { id: number } | { name: string }, job: WholeZoneJob<T>): Promise<T> {
    const key = this.keys.of(zone);
    if (key === undefined) return job.run();
    return this.submit(key, job) as Promise<T>;
  }

  /** `watch` sees what the queue does (each job queued, each run) until the returned function is called. */
  watch(watcher: (run: QueueRun) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** what a read of a zone told: its id under its name, and as the zone of the record it was asked through */
  learn(zone: LockedZone): void {
    this.keys.learnZone(zone);
    if (zone.target) this.keys.learnRecord(zone.id, zone.target.id);
  }

  private submit(zoneId: number, job: Job): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const queued = { ...job, resolve, reject };
      const queue = this.waiting.get(zoneId);
      if (queue) {
        queue.push(queued);
        if (this.watchers.size) this.report({ zoneId, queued: labelOf(job) });
        return;
      }
      this.waiting.set(zoneId, []);
      void this.drain(zoneId, [queued]);
    });
  }

  /** a change whose zone is not known yet: its first read learns it, then it takes the zone's turn or queues */
  private async runLearning<T>(job: ZoneJob<T>): Promise<T> {
    let taken: number | undefined;
    let busy: number | undefined;
    try {
      const outcome = await runOptimistically(this.parts, this.learning(job), (zone) => {
        this.learn(zone);
        if (this.waiting.has(zone.id)) {
          busy = zone.id;
          return false;
        }
        this.waiting.set(zone.id, []);
        taken = zone.id;
        if (this.watchers.size) this.report({ zoneId: zone.id, together: false, jobs: [job.request.zone] });
        return true;
      });
      if (outcome === JOIN_QUEUE) return (await this.submit(busy!, job)) as T;
      return outcome;
    } finally {
      if (taken !== undefined) void this.drain(taken, this.nextBatch(taken));
    }
  }

  private async drain(zoneId: number, first: QueuedJob[]): Promise<void> {
    let batch = first;
    while (batch.length) {
      // what is reported is made only for a watcher: a change of the hot path makes none
      if (this.watchers.size) this.report({ zoneId, together: batch.length > 1, jobs: batch.map(labelOf) });
      if (batch.length === 1) await this.runAlone(batch[0]);
      else await this.runTogether(zoneId, batch as (ZoneJob & QueuedJob)[]);
      batch = this.nextBatch(zoneId);
    }
    this.waiting.delete(zoneId);
  }

  /**
   * the next run of a zone's queue: a whole-zone job or a change of the zone's rules alone (the changes after it are
   * decided on the rules it leaves, read anew), or the changes of records before the next one
   */
  private nextBatch(zoneId: number): QueuedJob[] {
    const queue = this.waiting.get(zoneId)!;
    if (queue.length && runsAlone(queue[0])) return queue.splice(0, 1);
    let end = 0;
    while (end < queue.length && end < BATCH_LIMIT && !runsAlone(queue[end])) end++;
    return queue.splice(0, end);
  }

  private report(run: QueueRun): void {
    for (const watcher of this.watchers) watcher(run);
  }

  private async runAlone(job: QueuedJob): Promise<void> {
    try {
      job.resolve(isWholeZone(job) ? await job.run() : await changeZoneNow(this.parts, this.learning(job)));
    } catch (error) {
      job.reject(error);
    }
  }

  /** the job with a decision that tells the queue what its reads and writes learned */
  private learning<T>(job: ZoneJob<T>): ZoneJob<T> {
    return {
      ...job,
      decide: async (change) => {
        this.learn(change.zone);
        const value = await job.decide(change);
        // the zone of the records a change inserted is known at once: an edit of them queues before it reads
        this.keys.learnInserted(change.zone.id, change.written()?.inserted);
        return value;
      },
    };
  }

  /**
   * Several changes of one zone in one transaction: the zone row locked and the records every change of the
   * batch needs read once (`BatchZoneState`), each change decided on the zone as the ones before it left it
   * and written with its own serial step and journal row, then one commit. A change the rules refuse (a
   * DomainError from its decision, before it writes) is refused alone. A database error in a statement ends
   * the transaction with nothing written, and each change then runs on its own; an error of the commit itself
   * leaves the outcome unknown, so every change of the batch gets it (none is acknowledged, none is applied
   * twice), and so does a database that stayed unavailable (503 to each, not one wait per change).
   */
  private async runTogether(zoneId: number, batch: (ZoneJob & QueuedJob)[]): Promise<void> {
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    let decided = false;
    // the batch commits in its transaction, later: the zone's head (zone-heads.ts) is out until the commit, and
    // moves through the batch's writes if the batch read the zone at its serial
    const { heads, signer } = this.parts;
    const head = heads.suspend(zoneId);
    const written: WrittenChange[] = [];
    let readSerial: number | undefined;
    try {
      await batch[0].db.transaction(async (sql) => {
        // the data layer runs the transaction again, whole, when it met no writable primary before its commit
        // (DATABASE_FAILOVER_WAIT_MS, db/pool.ts): each run decides every change anew
        outcomes.length = 0;
        written.length = 0;
        const state = await readBatchState(sql, zoneId, batch);
        readSerial = state?.readSerial;
        for (const job of batch) {
          try {
            const scope = job.principal.kind === 'user' ? job.principal.userId : undefined;
            const change = state?.covers(job.request)
              ? ZoneChange.fromView(sql, job.settings, signer, job.principal, job.request, state.view(job.request, scope))
              : await ZoneChange.read(sql, job.settings, signer, job.principal, job.request, true);
            this.learn(change.zone);
            const value = await job.decide(change);
            const wrote = change.written();
            if (wrote) {
              this.keys.learnInserted(change.zone.id, wrote.inserted);
              if (change.zone.id === state?.zoneId) state.apply(wrote);
              if (change.zone.id === zoneId) written.push(wrote);
              else readSerial = undefined;
            }
            outcomes.push({ ok: true, value });
          } catch (error) {
            if (!(error instanceof DomainError)) throw error;
            outcomes.push({ ok: false, error });
          }
        }
        decided = true;
      });
    } catch (error) {
      // no primary found within the wait (db/pool.ts), or an outcome unknown: each change alone would meet the
      // same, one wait after another; every change of the batch gets the error (503), none is applied twice
      if (decided || isDatabaseUnavailable(error)) {
        for (const job of batch) job.reject(mapDatabaseError(error));
        return;
      }
      for (const job of batch) await this.runAlone(job);
      return;
    }
    heads.resume(head, readSerial, written);
    batch.forEach((job, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
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

  get zoneId(): number {
    return this.zone.id;
  }

  /** the zone's serial as the batch read it */
  get readSerial(): number {
    return this.zone.serial;
  }

  /**
   * The request names this zone and its records are all in the state (else the change reads for itself): a
   * zone named by id or name must be this one; a record named by id must be among the rows (one deleted
   * earlier in the batch, or of another zone, is not, and its change reads and is refused on its own).
   */
  covers(request: ZoneChangeRequest): boolean {
    const zone = request.zone;
    if ('id' in zone && zone.id !== this.zone.id) return false;
    if ('name' in zone && zone.name !== this.zone.name) return false;
    if ('recordId' in zone && !this.rows.has(zone.recordId)) return false;
    if (this.read.all) return true;
    if (request.allRecords) return false;
    const ids = idsNamed(request);
    if (!ids.every((id) => this.read.ids.has(id))) return false;
    // a change that names only a record needs the records at its owner (as `readZone` reads them), and so does
    // one that asks the whole owner of each record it names by id (`touching.ownersOfIds`)
    const named = ownersNamed(request) ?? (request.targetId !== undefined ? [this.rows.get(request.targetId)?.owner] : undefined);
    if (!named) return false;
    const owners = request.touching?.ownersOfIds ? [...named, ...request.touching.recordIds.map((id) => this.rows.get(id)?.owner)] : named;
    return owners.every((owner) => owner !== undefined && this.read.owners.has(owner));
  }

  /** the zone as `ZoneChange.read` would read it now for this request, or undefined outside the caller's scope */
  view(request: ZoneChangeRequest, scopeUserId: number | undefined): LockedZone | undefined {
    if (scopeUserId !== undefined && scopeUserId !== this.zone.userId) return undefined;
    const all = [...this.rows.values()];
    const target = request.targetId !== undefined ? this.rows.get(request.targetId) : undefined;
    let sameOwner: StoredRow[];
    if (request.allRecords) sameOwner = all;
    else if (request.touching) {
      const owners = new Set(request.touching.owners);
      const ids = new Set(request.touching.recordIds);
      if (request.touching.ownersOfIds) for (const id of ids) if (this.rows.has(id)) owners.add(this.rows.get(id)!.owner);
      sameOwner = all.filter((r) => owners.has(r.owner) || ids.has(r.id));
    } else {
      const owner = request.owner ?? target?.owner;
      sameOwner = all.filter((r) => r.owner === owner);
    }
    sameOwner.sort((a, b) => a.id - b.id);
    return { ...this.zone, serial: this.serial, soa: this.soa, sameOwner, target };
  }

  /** what a committed change wrote */
  apply(written: WrittenChange): void {
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

/** the owners a change names; undefined when it names only a record, whose owner is known once read */
function ownersNamed(request: ZoneChangeRequest): string[] | undefined {
  return request.touching?.owners ?? (request.owner !== undefined ? [request.owner] : undefined);
}

/** the record ids a change names */
function idsNamed(request: ZoneChangeRequest): number[] {
  const ids = [...(request.touching?.recordIds ?? []), ...(request.targetId !== undefined ? [request.targetId] : [])];
  if ('recordId' in request.zone) ids.push(request.zone.recordId);
  return ids;
}

/**
 * Locks the batch's zone (by the queue's key, its id: the batch's changes may name it in different ways)
 * and reads what all its changes touch, in one statement (none if the zone is not there).
 */
async function readBatchState(sql: Sql, zoneId: number, batch: ZoneJob[]): Promise<BatchZoneState | undefined> {
  const all = batch.some((job) => job.request.allRecords);
  const ownersOfIds = batch.some((job) => job.request.touching?.ownersOfIds);
  const owners = new Set<string>(['@']);
  const ids = new Set<number>();
  for (const { request } of batch) {
    for (const owner of ownersNamed(request) ?? []) owners.add(owner);
    for (const id of idsNamed(request)) ids.add(id);
  }
  const zone = await readZone(
    sql,
    all
      ? { zone: { id: zoneId }, allRecords: true }
      : { zone: { id: zoneId }, touching: { owners: [...owners], recordIds: [...ids], ownersOfIds } },
    true,
  );
  // the whole owner of every record named by id was read too: those owners are in the state
  if (zone && ownersOfIds) for (const row of zone.sameOwner) if (ids.has(row.id)) owners.add(row.owner);
  return zone && new BatchZoneState(zone, { all, owners, ids });
}
