import type { Database, Sql } from '../../db/pool';
import type { LockedZone } from '../../repositories/zone-writes';
import type { Settings } from '../../config/settings';
import type { Principal } from '../../auth/principal';
import { mapDatabaseError } from '../db-errors';
import { DecideAgain, ZoneChange, ZoneChangeRequest } from './staging';

/**
 * The optimistic path: read → decide → conditional write, then retries, then the lock.
 *
 * The zone's serial is its version. A change first runs optimistically: one read, then one write that
 * applies only if the serial is still the one read (`writeZoneChange`), each committing on its own; if
 * another change came in between, `decide` runs again. After `OPTIMISTIC_ATTEMPTS`, or for a change that
 * needs two writing statements, it runs in a transaction holding the zone row's lock. On the API's hot path
 * that is two round trips to PostgreSQL instead of four (docs/performance.md, «Writing zones»). Constraint violations
 * become domain errors.
 */

/** One change of a zone's records as the engine runs it: who asks, what to read, and the rules' decision. */
export interface ZoneJob<T = unknown> {
  db: Database;
  settings: Settings;
  principal: Principal;
  request: ZoneChangeRequest;
  decide: (change: ZoneChange) => Promise<T>;
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
export async function runOptimistically<T>(job: ZoneJob<T>, onFirstRead?: (zone: LockedZone) => boolean): Promise<T | typeof JOIN_QUEUE> {
  let first = true;
  const attempt = async (sql: Sql, locked: boolean): Promise<T | typeof JOIN_QUEUE> => {
    const change = await ZoneChange.read(sql, job.settings, job.principal, job.request, locked);
    const firstRead = first;
    first = false;
    if (firstRead && onFirstRead && !onFirstRead(change.zone)) return JOIN_QUEUE;
    return job.decide(change);
  };
  try {
    for (let tries = 0; tries < OPTIMISTIC_ATTEMPTS; tries++) {
      try {
        return await job.db.connection((sql) => attempt(sql, false));
      } catch (error) {
        if (!(error instanceof DecideAgain)) throw error;
        if (error.lockNow) break;
      }
    }
    return await job.db.transaction((sql) => attempt(sql, true));
  } catch (error) {
    throw mapDatabaseError(error);
  }
}

/** `runOptimistically` for a change that already holds its zone's turn in the queue (or needs none) */
export async function changeZoneNow<T>(job: ZoneJob<T>): Promise<T> {
  return (await runOptimistically(job)) as T;
}
