import type { Database, Sql } from '../../db/pool';
import type { LockedZone } from '../../repositories/zone-writes';
import type { Settings } from '../../config/settings';
import type { Principal } from '../../auth/principal';
import { mapDatabaseError } from '../db-errors';
import { DecideAgain, ZoneChange, ZoneChangeRequest } from './staging';
import { DomainError } from '../../errors/catalogue';
import type { ZoneHeads } from './zone-heads';
import type { ZoneSigner } from './signing';

/**
 * The optimistic path: read → decide → conditional write, then retries, then the lock.
 *
 * The zone's serial is its version. A change first runs optimistically: one read, then one write that
 * applies only if the serial is still the one read (`writeZoneChange`), each committing on its own; if
 * another change came in between, `decide` runs again. After `OPTIMISTIC_ATTEMPTS`, or for a change that
 * needs two writing statements, it runs in a transaction holding the zone row's lock. On the API's hot path
 * that is two round trips to PostgreSQL instead of four (docs/performance.md, «Writing zones»). Constraint violations
 * become domain errors.
 *
 * When the process holds the zone's head (zone-heads.ts: the zone as its last read or write here left it), the
 * first attempt decides on it without a read, and its write proves it current: one round trip. A write that did
 * not apply, a refusal or a decision that wrote nothing is decided again on a read.
 */

/** One change of a zone's records as the engine runs it: who asks, what to read, and the rules' decision. */
export interface ZoneJob<T = unknown> {
  db: Database;
  settings: Settings;
  principal: Principal;
  request: ZoneChangeRequest;
  decide: (change: ZoneChange) => Promise<T>;
}

/** what the engine lends every change it runs (index.ts, `WriteEngine`): its zones' heads and its signer */
export interface EngineParts {
  readonly heads: ZoneHeads;
  readonly signer: ZoneSigner;
}

/** optimistic attempts before a change takes the zone row's lock (progress under contention on one zone) */
const OPTIMISTIC_ATTEMPTS = 2;

/** what `onFirstRead` answers to stop a change before its decision: it joins its zone's queue instead */
export const JOIN_QUEUE = Symbol('join the zone queue');

/**
 * Runs `job` on the optimistic path. `onFirstRead` sees the zone the first read found, before `decide`:
 * the per-zone queue learns a zone's id there (a change named by record id or by a name not seen yet), and
 * answers false when the zone is busy, which ends this run with `JOIN_QUEUE` and nothing written.
 */
export async function runOptimistically<T>(
  { heads, signer }: EngineParts,
  job: ZoneJob<T>,
  onFirstRead?: (zone: LockedZone) => boolean,
): Promise<T | typeof JOIN_QUEUE> {
  let first = true;
  let onHead = true;
  // whether the last attempt was decided on the zone's head (set by `attempt`)
  let usedHead: boolean | undefined;
  const attempt = async (sql: Sql, locked: boolean): Promise<T | typeof JOIN_QUEUE> => {
    const view = locked || !onHead ? undefined : heads.take(job.request, job.principal);
    usedHead = view !== undefined;
    const change = view
      ? ZoneChange.fromHead(sql, job.settings, signer, job.principal, job.request, view)
      : await ZoneChange.read(sql, job.settings, signer, job.principal, job.request, locked);
    const firstRead = first;
    first = false;
    if (firstRead && onFirstRead && !onFirstRead(change.zone)) {
      if (view) heads.drop(change.zone.id);
      return JOIN_QUEUE;
    }
    // in a transaction the write commits later, or not at all: the zone's head is dropped, not kept
    if (locked) {
      heads.forget(change.zone.id);
      return job.decide(change);
    }
    if (view) return decideOnHead(change, view.unknownOwners);
    try {
      const value = await job.decide(change);
      heads.keepRead(change.zone, job.request, change.written());
      // a signed zone without a head is read whole once its change committed, still in the zone's turn
      if (change.written() && heads.wantsWhole(change.zone)) await heads.readWhole(sql, change.zone.id);
      return value;
    } catch (error) {
      // a refusal, or a change that must take the lock, ended on the zone as read (and as it wrote, if it did);
      // a zone that moved since the read, or an error whose write is unknown, leaves no head
      const stands = error instanceof DomainError || (error instanceof DecideAgain && error.lockNow);
      if (stands) heads.keepRead(change.zone, job.request, change.written());
      else heads.forget(change.zone.id);
      throw error;
    }
  };
  const decideOnHead = async (change: ZoneChange, unknownOwners: readonly string[]): Promise<T> => {
    let value: T;
    try {
      value = await job.decide(change);
    } catch (error) {
      const written = change.written();
      // the write committed and the decision failed after it: that is its outcome, never decided twice
      if (written) {
        heads.keepWritten(change.zone.id, unknownOwners, written);
        throw error;
      }
      heads.drop(change.zone.id);
      // refused, or not written, on the zone as this process saw it: decided again on the zone as it is
      if (error instanceof DomainError || error instanceof DecideAgain) {
        onHead = false;
        throw new DecideAgain(error instanceof DecideAgain && error.lockNow);
      }
      throw error;
    }
    const written = change.written();
    if (!written) {
      heads.drop(change.zone.id);
      onHead = false;
      throw new DecideAgain(false);
    }
    heads.keepWritten(change.zone.id, unknownOwners, written);
    return value;
  };
  try {
    // an attempt decided on the zone's head is not one of the optimistic attempts: one that must be decided
    // again is decided on a read
    for (let reads = 0; reads < OPTIMISTIC_ATTEMPTS;) {
      usedHead = false;
      try {
        return await job.db.connection((sql) => attempt(sql, false));
      } catch (error) {
        if (!(error instanceof DecideAgain)) throw error;
        if (error.lockNow) break;
      }
      if (!usedHead) reads++;
      onHead = false;
    }
    return await job.db.transaction((sql) => attempt(sql, true));
  } catch (error) {
    throw mapDatabaseError(error);
  }
}

/** `runOptimistically` for a change that already holds its zone's turn in the queue (or needs none) */
export function changeZoneNow<T>(parts: EngineParts, job: ZoneJob<T>): Promise<T> {
  // without `onFirstRead` the run never answers JOIN_QUEUE
  return runOptimistically(parts, job) as Promise<T>;
}
