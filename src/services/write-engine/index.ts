import type { Settings } from '../../config/settings';
import type { Principal } from '../../auth/principal';
import type { Database, Sql } from '../../db/pool';
import { inTransaction, mapDatabaseError } from '../db-errors';
import { admitNewZones, removeFromCatalog } from './catalog';
import { deleteZone, lockZoneOwner } from '../../repositories/zone-writes';
import { queuesOf, QueueRun } from './zone-queue';
import type { ZoneChange, ZoneChangeRequest } from './staging';
import { zoneChangeLimits } from '../rate-limits';

/**
 * The write engine: every change of a zone goes through `writeZone`, however the caller names the zone —
 * record creates, edits and deletes (records.service.ts), change sets and reverts (zone-changes.service.ts,
 * history.service.ts), DNS UPDATE (dns-updates.service.ts), zone-file imports (zone-files.service.ts), and a
 * zone's creation and deletion (domains.service.ts). Its parts, one file each:
 *
 * - the optimistic path (optimistic.ts): read → decide → a write conditional on the serial read, decided
 *   again when the zone moved, then in a transaction holding the zone row's lock;
 * - the per-zone queue (zone-queue.ts): per zone id, one change at a time in the process, and the changes
 *   that queued meanwhile written in one transaction; the id is learned from reads, so a zone named by name,
 *   by id or by one of its records is one queue;
 * - the staging object (staging.ts): what `decide` sees (`ZoneChange`) and how it writes one serial step
 *   with its journal row (docs/decisions.md §3: the serial rises exactly once per change), and whether a
 *   change changes nothing (`changesNothing`), which its caller then does not commit: no step, no journal row;
 * - the catalog's membership (catalog.ts), written once: admission after a create, removal in a deletion, and
 *   a secondary zone's leaving when it expires and joining again when it is served again;
 * - the signing port (signing.ts): what a signed zone's change asks of its signer, in its serial step; DNSSEC
 *   implements it (services/dnssec/zone-signing.ts), wired where the services are made (services/index.ts).
 */
export type ZoneWrite<T> =
  /** a change of a zone's records: `decide` checks the rules on the zone as read and stages the change */
  | { kind: 'records'; request: ZoneChangeRequest; decide: (change: ZoneChange) => Promise<T> }
  /**
   * a zone's creation: `insert` writes the zone, its records and its journal row in one statement (it
   * commits on its own; with `transaction`, in one transaction, for a create that locks and checks before
   * it writes), then the zone joins the catalog; the answer waits for both
   */
  | { kind: 'create-zone'; transaction?: boolean; insert: (sql: Sql) => Promise<T & { id: number; name: string }> }
  /**
   * a zone's deletion, in its zone's turn: `remove` finds the zone and journals its records in the
   * transaction it is given, answering which zone it is; the engine then takes it out of the catalog and
   * deletes it, in that transaction
   */
  | { kind: 'delete-zone'; zone: { id: number } | { name: string }; remove: (sql: Sql) => Promise<T & { id: number; name: string }> };

/** The one entry of every zone change (see above). */
export async function writeZone<T>(db: Database, settings: Settings, principal: Principal, write: ZoneWrite<T>): Promise<T> {
  const queues = queuesOf(db);
  switch (write.kind) {
    case 'records': {
      // a user's change takes one of its zone's changes per second (rate-limits.ts), once, at its first
      // decision: a change decided again (the zone moved, or it runs on its own after a failed batch) is the same change
      const limits = principal.kind === 'user' && !write.request.signatureOnly ? zoneChangeLimits(db, settings) : undefined;
      let counted = !limits;
      // a change refused by the limit stays refused when it is decided again (on a read after the zone's head,
      // optimistic.ts): the limit was taken once, and its refusal does not depend on the zone's records
      let refused: Error | undefined;
      const decide = async (change: ZoneChange): Promise<T> => {
        if (refused) throw refused;
        if (!counted) {
          counted = true;
          try {
            limits!.take(change.zone.id);
          } catch (error) {
            refused = error instanceof Error ? error : new Error(String(error));
            throw refused;
          }
        }
        return write.decide(change);
      };
      return queues.run({ db, settings, principal, request: write.request, decide });
    }
    case 'create-zone': {
      const zone = await (write.transaction ? db.transaction(write.insert) : db.connection(write.insert)).catch((error) => {
        throw mapDatabaseError(error);
      });
      queues.keys.learnZone(zone);
      await admitNewZones(db, settings);
      return zone;
    }
    case 'delete-zone':
      return queues.runWholeZone(write.zone, {
        wholeZone: 'delete-zone',
        run: async () => {
          const zone = await inTransaction(db, async (sql) => {
            const removed = await write.remove(sql);
            // the owner's row first (its zone count falls with the zone), then the catalog's lock before the zone
            // row goes: the orders a user's deletion and catalog admission take them in
            await lockZoneOwner(sql, removed.id);
            await removeFromCatalog(sql, settings, [removed]);
            await deleteZone(sql, removed.id);
            return removed;
          });
          queues.keys.forgetZone(zone);
          return zone;
        },
      });
  }
}

/**
 * A change of a zone's records (`writeZone`'s `records`): reads the zone with the records the rules need,
 * lets `decide` check the rules and stage the change, and writes it with the raised serial, the new SOA and
 * the journal/outbox row that the propagation worker and IXFR read. Constraint violations become domain errors.
 */
export function changeZone<T>(
  db: Database,
  settings: Settings,
  principal: Principal,
  request: ZoneChangeRequest,
  decide: (change: ZoneChange) => Promise<T>,
): Promise<T> {
  return writeZone(db, settings, principal, { kind: 'records', request, decide });
}

/** `watch` sees every run of the zone queues of `db` (which jobs, alone or together) until the returned function is called. */
export function watchZoneQueues(db: Database, watch: (run: QueueRun) => void): () => void {
  return queuesOf(db).watch(watch);
}

export type { QueueRun } from './zone-queue';
export { journalRecord, ZoneChange } from './staging';
export { applyChangePlan, dryRunChangePlan } from './apply-plan';
export type { ZoneChangeRequest } from './staging';
export {
  publishWaitingMembers,
  moveToSet,
  endServedDepartures,
  recordFailedRefresh,
  recordWorkingRefresh,
  expireOverdueSecondary,
  promoteToPrimary,
} from './catalog';
export { journalWholeZone } from './whole-zone';
export { useZoneSigner } from './signing';
export type { ChangeToSign, ZoneSigner } from './signing';
