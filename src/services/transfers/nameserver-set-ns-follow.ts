import { servicePrincipal } from '../../auth/principal';
import type { Database } from '../../db/pool';
import { ownersToCheck } from '../../dns/zone-checks';
import { DomainError } from '../../errors/catalogue';
import { nameserverSetById } from '../../repositories/nameserver-sets';
import {
  advanceNsFollow,
  claimNsFollow,
  endNsFollow,
  NsFollowRow,
  releaseNsFollow,
  zonesToFollow,
} from '../../repositories/nameserver-set-ns-follows';
import { recordAuditEvent } from '../audit-log';
import type { RequestContext } from '../context';
import { inTransaction } from '../db-errors';
import type { PlannedChanges, PlanView } from '../zones/zone-change-set';
import type { ZoneChangesService } from '../zones/zone-changes.service';

/** a follow is this process's for this long after each batch; a process that dies leaves it to another then */
const LEASE_SECONDS = 60;
/** zones read and done per step (one index range of domains_nameserver_set_index), the lease renewed after each */
const ZONES_PER_STEP = 200;
/**
 * zones changed at once: each is its own change set in its own zone's turn of the write engine, so several go
 * side by side as several API clients' would; more would take the pool's connections from the API's requests
 */
const AT_ONCE = 4;

/** how a zone's apex NS met a follow: replaced; left (the zone's own names, or a write its rules refused); already the new names */
export type NsFollowOutcome = 'changed' | 'kept' | 'already';

const sameNames = (a: readonly string[], b: readonly string[]) => {
  const sorted = (names: readonly string[]) => names.map((n) => n.toLowerCase()).sort();
  const [x, y] = [sorted(a), sorted(b)];
  return x.length === y.length && x.every((name, i) => name === y[i]);
};

/**
 * One zone's apex NS following a set's names (docs/transfers.md, «NS records»): they become `to` only when they
 * were exactly `from` (as a set of names, whatever the order); a zone's own NS are left. One change set through
 * the write engine: the serial rises once, the journal has the row, IXFR and NOTIFY follow. The plan is shared by a
 * zone's move to another set and a set's change of its names.
 */
export async function followNs(
  zoneChanges: ZoneChangesService,
  ctx: RequestContext,
  zone: string,
  from: readonly string[],
  to: readonly string[],
): Promise<NsFollowOutcome> {
  let outcome: NsFollowOutcome = 'kept';
  await zoneChanges.applyPlanned(ctx, {
    zone,
    // the apex, and the names the zone checks need for the new NS (an in-zone name server's address)
    owners: [
      '@',
      ...ownersToCheck(
        zone,
        to.map((rdata) => ({ owner: '@', type: 'NS', rdata })),
      ),
    ],
    plan: (view: PlanView): PlannedChanges => {
      const ns = view.records.filter((r) => r.owner === '@' && r.type === 'NS');
      const names = ns.map((r) => r.rdata);
      // (a plan runs again when the zone moved before its write: the outcome is the last run's)
      outcome = sameNames(names, to) ? 'already' : sameNames(names, from) ? 'changed' : 'kept';
      if (outcome !== 'changed') return { changes: [] };
      const ttl = ns[0]?.ttl ?? 3600;
      return { changes: [{ kind: 'REPLACE_RRSET', owner: '@', type: 'NS', ttl, rdatas: [...to] }] };
    },
  });
  return outcome;
}

/** did a set's change of its NS names change them (as sets of names)? */
export const nsNamesChanged = (before: readonly string[], after: readonly string[]) => !sameNames(before, after);

/**
 * A set's zones following its new NS names (docs/transfers.md, «A set's NS names, followed by its zones»): the
 * worker's duty walks one follow at a time, its zones in id order, ZONES_PER_STEP a step and AT_ONCE side by side,
 * each zone as `followNs` decides. Its progress is in its row after every step, under a lease: a worker that stops
 * gives it back, one that dies leaves it to another after LEASE_SECONDS, and either goes on from the last step
 * recorded (a zone done again has the new names already and is left as it is). A zone's write that its rules
 * refuse keeps its NS and is named in the follow's end. The last step ends the follow and writes its audit event.
 * Answers whether a follow was walked (then there may be another).
 */
export async function walkNsFollow(zoneChanges: ZoneChangesService, db: Database, signal: AbortSignal): Promise<boolean> {
  const follow = await claimNsFollow(db, LEASE_SECONDS);
  if (!follow) return false;
  const set = await nameserverSetById(db, follow.setId);
  if (!set) return true; // the set was deleted, and its follow with it
  const ctx: RequestContext = { db, principal: servicePrincipal(`nameserver set ${set.name}'s NS names (${follow.actor})`) };
  let from = follow.nextZoneId;
  while (!signal.aborted) {
    const zones = await zonesToFollow(db, follow.setId, from, ZONES_PER_STEP);
    if (!zones.length) {
      await endFollow(db, set.name, follow);
      return true;
    }
    const done = { changed: 0, kept: 0, refused: [] as { zone: string; code: string }[] };
    const queue = zones.filter((zone) => !zone.secondary);
    const next = async (): Promise<void> => {
      // a worker that stops takes no zone more: the step ends with those under way
      for (let zone = signal.aborted ? undefined : queue.shift(); zone; zone = signal.aborted ? undefined : queue.shift()) {
        try {
          const outcome = await followNs(zoneChanges, ctx, zone.name, follow.fromNames, follow.toNames);
          if (outcome === 'changed') done.changed++;
          if (outcome === 'kept') done.kept++;
        } catch (error) {
          // the database away: the step is done again by whoever takes the follow next
          if (!(error instanceof DomainError)) throw error;
          if (error.code === 'ZONE_NOT_FOUND') continue; // deleted meanwhile
          done.kept++;
          // the finding that refused it (a zone check's code), else the refusal's own
          done.refused.push({ zone: zone.name, code: error.details.find((d) => d.code)?.code ?? error.code });
        }
      }
    };
    // every slot ends before the step does (a failure after the others: no write goes on past the run)
    const failed = (await Promise.allSettled(Array.from({ length: AT_ONCE }, next))).find((o) => o.status === 'rejected');
    if (failed) throw failed.reason;
    // zones are taken in id order: those left in the queue (a stop) and every zone after them are still to do
    from = queue.length ? queue[0].id : zones[zones.length - 1].id + 1;
    if (!(await advanceNsFollow(db, follow.setId, { nextZoneId: from, ...done }, LEASE_SECONDS))) return true;
  }
  await releaseNsFollow(db, follow.setId);
  return false;
}

async function endFollow(db: Database, setName: string, follow: NsFollowRow): Promise<void> {
  await inTransaction(db, async (sql) => {
    const ended = await endNsFollow(sql, follow.setId);
    if (!ended) return;
    await recordAuditEvent(sql, {
      kind: 'nameserver-set-ns-followed',
      actor: servicePrincipal(ended.actor),
      subject: `nameserver-set:${setName}`,
      detail: {
        from: ended.fromNames,
        to: ended.toNames,
        zonesChanged: ended.zonesChanged,
        zonesKept: ended.zonesKept,
        refused: ended.refused,
        seconds: Math.round((Date.now() - ended.startedAt.getTime()) / 1000),
      },
    });
  });
}
