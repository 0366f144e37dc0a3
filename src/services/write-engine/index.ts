import type { Settings } from '../../config/settings';
import type { Principal } from '../../auth/principal';
import type { Database, Sql } from '../../db/pool';
import { inTransaction, mapDatabaseError } from '../db-errors';
import {
  CatalogAdmissions,
  endServedDepartures,
  expireOverdueSecondary,
  moveToSet,
  promoteToPrimary,
  publishWaitingMembers,
  recordFailedRefresh,
  recordWorkingRefresh,
  removeFromCatalog,
} from './catalog';
import { deleteZone, lockZoneOwner } from '../../repositories/zone-rows';
import { QueueRun, ZoneQueues } from './zone-queue';
import type { ZoneChange, ZoneChangeRequest } from './staging';
import { ZoneChangeLimits } from '../rate-limits';
import { ZoneHeads } from './zone-heads';
import type { ZoneSigner } from './signing';
import { gatesOf } from './writers';
import { journalWholeZone } from './whole-zone';
import type { DnssecPolicy } from '../../repositories/dnssec';
import type { ViewStep } from '../../repositories/views';

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
 *   implements it (services/dnssec/zone-signing.ts), handed to the engine where the services are made
 *   (services/index.ts).
 *
 * What the engine remembers between changes (the queues and the zone ids they learned, the zones' heads, the
 * catalog admission under way, the zones' change rates) is the instance's own: one `WriteEngine` per database
 * a process serves, made with its services, so that two of them (a test's two databases) never mix their zones.
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
   * many zones' creation (DomainsService.createMany): `insert` writes them all in one transaction, then they join
   * the catalog in one admission (one catalog step for up to catalog.ts's ADMIT_BATCH zones); the answer waits for both
   */
  | { kind: 'create-zones'; insert: (sql: Sql) => Promise<T & { id: number; name: string }[]> }
  /**
   * a zone's deletion, in its zone's turn: `remove` finds the zone and journals its records in the
   * transaction it is given, answering which zone it is; the engine then takes it out of the catalog and
   * deletes it, in that transaction
   */
  | { kind: 'delete-zone'; zone: { id: number } | { name: string }; remove: (sql: Sql) => Promise<T & { id: number; name: string }> }
  /**
   * a view's overlay of one RRset in a zone (docs/views.md), in its zone's turn and one transaction: `write`
   * locks the zone row, checks the view's zone and writes the overlay with its view's serial step; a signed zone's
   * view is then signed again for that serial with `views.sign`, in the transaction (the engine's signer)
   */
  | { kind: 'view-overlay'; zone: { name: string }; write: (sql: Sql, views: ViewZoneSigning) => Promise<T> };

/** what an overlay's write signs a signed zone's view with (signing.ts `ZoneSigner.signViews`), in its transaction */
export interface ViewZoneSigning {
  sign(zone: { id: number; name: string }, policy: DnssecPolicy, steps: readonly ViewStep[]): Promise<void>;
}

/** The write engine of one database (see above): its state, and the one entry of every zone change. */
export class WriteEngine {
  private readonly db: Database;
  private readonly queues: ZoneQueues;
  private readonly admissions = new CatalogAdmissions();
  /** the zones' changes per second (rate-limits.ts), users' changes only */
  private readonly zoneChangeLimits: ZoneChangeLimits;
  private readonly signer: ZoneSigner;

  constructor(options: { db: Database; settings: Settings; signer: ZoneSigner }) {
    const base = options.db.base;
    this.db = base;
    this.signer = options.signer;
    // a head read before a failover is not trusted after it (zone-heads.ts)
    const heads = new ZoneHeads(() => base.hosts.generation, options.signer);
    this.queues = new ZoneQueues({ heads, signer: options.signer });
    this.zoneChangeLimits = new ZoneChangeLimits(options.settings.zoneChangeLimit);
  }

  /**
   * The one entry of every zone change (see above). `db` is the engine's database or a view of it (a failover
   * wait capped: db/pool.ts), on which the change's statements run; another database's would mix their zones.
   */
  async writeZone<T>(db: Database, settings: Settings, principal: Principal, write: ZoneWrite<T>): Promise<T> {
    this.ownDatabase(db);
    const queues = this.queues;
    switch (write.kind) {
      case 'records': {
        // a user's change takes one of its zone's changes per second (rate-limits.ts), once, when it is written: it
        // is admitted by the rate at its write, after every refusal of what it is (the key's policy, the zone's
        // rules, a locked RRset: staging.ts `admitWith`), so that a change refused, a dry run or one that changes
        // nothing takes none, and a key that may not write the zone cannot spend its budget; a change decided again
        // (the zone moved, or it runs on its own after a failed batch) is the same change. Which writers take one:
        // writers.ts (a signer's step and a change of the zone's rules take none).
        const limits = principal.kind === 'user' && gatesOf(write.request.writer).rate ? this.zoneChangeLimits : undefined;
        let counted = !limits;
        // a change refused by the rate stays refused when it is decided again (on a read after the zone's head,
        // optimistic.ts): its refusal does not depend on the zone's records
        let refused: Error | undefined;
        const admit = (zoneId: number) => {
          try {
            limits!.check(zoneId);
          } catch (error) {
            refused = error instanceof Error ? error : new Error(String(error));
            throw refused;
          }
        };
        const decide = async (change: ZoneChange): Promise<T> => {
          if (refused) throw refused;
          if (!counted) change.admitWith(() => admit(change.zone.id));
          const decided = await write.decide(change);
          if (!counted && change.written()) {
            counted = true;
            limits!.taken(change.zone.id);
          }
          return decided;
        };
        return queues.run({ db, settings, principal, request: write.request, decide });
      }
      case 'create-zone': {
        const zone = await (write.transaction ? db.transaction(write.insert) : db.connection(write.insert)).catch((error) => {
          throw mapDatabaseError(error);
        });
        queues.keys.learnZone(zone);
        await this.admissions.run(db, settings);
        return zone;
      }
      case 'create-zones': {
        const zones = await db.transaction(write.insert).catch((error) => {
          throw mapDatabaseError(error);
        });
        for (const zone of zones) queues.keys.learnZone(zone);
        await this.admissions.run(db, settings);
        return zones;
      }
      case 'view-overlay':
        return queues.runWholeZone(write.zone, {
          wholeZone: 'view-overlay',
          run: () =>
            inTransaction(db, (sql) =>
              write.write(sql, { sign: (zone, policy, steps) => this.signer.signViews(sql, zone, policy, steps, settings) }),
            ),
        });
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
  changeZone<T>(
    db: Database,
    settings: Settings,
    principal: Principal,
    request: ZoneChangeRequest,
    decide: (change: ZoneChange) => Promise<T>,
  ): Promise<T> {
    return this.writeZone(db, settings, principal, { kind: 'records', request, decide });
  }

  /** `watch` sees every run of the engine's zone queues (which jobs, alone or together) until the returned function is called. */
  watchZoneQueues(watch: (run: QueueRun) => void): () => void {
    return this.queues.watch(watch);
  }

  /** the zone id the engine's queues learned for a zone as a change names it (by id, name or record id); undefined: not learned */
  zoneIdOf(zone: ZoneChangeRequest['zone']): number | undefined {
    return this.queues.keys.of(zone);
  }

  // the catalog's membership (catalog.ts), in the caller's transaction or the worker's: statements only, no
  // state of the engine's, reached through it so that every write of a zone has one way in
  readonly publishWaitingMembers = publishWaitingMembers;
  readonly endServedDepartures = endServedDepartures;
  readonly moveToSet = moveToSet;
  readonly recordFailedRefresh = recordFailedRefresh;
  readonly recordWorkingRefresh = recordWorkingRefresh;
  readonly expireOverdueSecondary = expireOverdueSecondary;
  readonly promoteToPrimary = promoteToPrimary;
  /** a whole zone's records as one journal row (a creation, a deletion: whole-zone.ts) */
  readonly journalWholeZone = journalWholeZone;

  private ownDatabase(db: Database): void {
    if (db.base !== this.db) throw new Error("a zone change was handed another database than its write engine's (services/index.ts)");
  }
}

export type { QueueRun } from './zone-queue';
export { journalRecord, ZoneChange } from './staging';
export { applyChangePlan, dryRunChangePlan } from './apply-plan';
export type { ZoneChangeRequest } from './staging';
export type { Writer, WriterKind, WriterGates } from './writers';
export type { ChangeToSign, ZoneSigner } from './signing';
