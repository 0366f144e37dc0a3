import type { ErrorDetail } from '../../errors/catalogue';
import type { ChangePlan } from '../write-engine/plan';
import type { RrsetUse } from '../../repositories/query-analytics';
import type { ZoneAsRead } from './change-plan';

/*
 * The "in use" guard (docs/analytics.md): a plan that deletes or replaces an RRset the secondaries answered
 * recently is told so before it is written. Resolvers keep an answer for its TTL (RFC 1035 §3.2.1, RFC 2308 for
 * what is no longer there), so a name queried within twice its TTL, or within ANALYTICS_IN_USE_DAYS, is one
 * somebody still asks for. Pure: the service reads the traffic (repositories/query-analytics.ts, `rrsetUse`)
 * of the RRsets `removedRrsets` names, and `inUseFindings` answers the findings.
 */

/** an RRset a plan removes records of: its owner and type, its largest TTL, and whether none of it is left */
export interface RemovedRrset {
  owner: string;
  type: string;
  ttl: number;
  deleted: boolean;
  /** an NS RRset below the apex: a zone cut (RFC 1034 §4.2.1), whose names below are answered by referral */
  delegation: boolean;
}

/** the RRsets a plan deletes or replaces records of (a TTL changed is a replacement too), in the order met */
export function removedRrsets(zone: Pick<ZoneAsRead, 'records'>, plan: Pick<ChangePlan, 'removals' | 'insertions'>): RemovedRrset[] {
  if (!plan.removals.length) return [];
  const sets = new Map<string, RemovedRrset & { removed: number }>();
  for (const { row } of plan.removals) {
    const key = `${row.owner} ${row.type}`;
    const set = sets.get(key);
    if (set) {
      set.ttl = Math.max(set.ttl, row.ttl);
      set.removed++;
    } else
      sets.set(key, {
        owner: row.owner,
        type: row.type,
        ttl: row.ttl,
        deleted: true,
        delegation: row.type === 'NS' && row.owner !== '@',
        removed: 1,
      });
  }
  // an RRset is deleted when the plan removes every record the zone serves of it and adds none back
  const served = new Map<string, number>();
  for (const row of zone.records)
    if (sets.has(`${row.owner} ${row.type}`)) served.set(`${row.owner} ${row.type}`, (served.get(`${row.owner} ${row.type}`) ?? 0) + 1);
  for (const { record } of plan.insertions) {
    const set = sets.get(`${record.owner} ${record.type}`);
    if (set) set.deleted = false;
  }
  return [...sets.entries()].map(([key, { removed, ...set }]) => ({ ...set, deleted: set.deleted && removed >= (served.get(key) ?? 0) }));
}

/** how far back an RRset's last query makes it in use: ANALYTICS_IN_USE_DAYS, or twice its TTL if longer */
export const inUseWindowMs = (set: Pick<RemovedRrset, 'ttl'>, inUseDays: number): number =>
  Math.max(inUseDays * 86_400_000, 2 * set.ttl * 1000);

export type InUseCode = 'RRSET_IN_USE' | 'DELEGATION_IN_USE' | 'RRSET_USE_UNKNOWN';

/**
 * The findings of the RRsets a plan removes from, by what was read of their traffic: RRSET_IN_USE (queried in its
 * window), DELEGATION_IN_USE (a delegation deleted while names at or below it are asked for: the referral
 * resolvers follow goes with it), RRSET_USE_UNKNOWN (not seen queried, but the collectors' coverage of the window
 * has a gap: nobody can tell). Each a warning about its RRset, kept with the change in the history.
 */
export function inUseFindings(zone: string, sets: readonly RemovedRrset[], use: RrsetUse, now: Date, inUseDays: number): ErrorDetail[] {
  const found: ErrorDetail[] = [];
  const days = (ms: number) => {
    const d = ms / 86_400_000;
    return d >= 1 ? `${Math.round(d * 10) / 10} days` : `${Math.round(ms / 3_600_000)} hours`;
  };
  for (const set of sets) {
    const window = inUseWindowMs(set, inUseDays);
    const since = now.getTime() - window;
    const cut = set.delegation ? use.delegations.get(set.owner) : undefined;
    const own = use.rrsets.get(`${set.owner} ${set.type}`);
    // a delegation's NS is answered in every referral below it, so what is asked below it counts for it
    const last = [own, cut].filter((d): d is Date => d !== undefined && d.getTime() >= since).sort((a, b) => b.getTime() - a.getTime())[0];
    const what = `${set.owner} ${set.type}`;
    const finding = (code: InUseCode, message: string) =>
      found.push({ field: 'changes', code, message: `changes: ${message}`, severity: 'warning', owner: set.owner, type: set.type });
    if (last && set.delegation && set.deleted)
      finding(
        'DELEGATION_IN_USE',
        `the delegation ${what} of ${zone} is deleted while names at or below it are still queried (last ${last.toISOString()}, within ${days(window)}): resolvers lose the referral (RFC 1034 §4.2.1)`,
      );
    else if (last)
      finding(
        'RRSET_IN_USE',
        `${what} of ${zone} is ${set.deleted ? 'deleted' : 'replaced'} while still queried (last ${last.toISOString()}, within ${days(window)}; resolvers keep it for its TTL, ${set.ttl} s)`,
      );
    else if (use.coverageGap)
      finding(
        'RRSET_USE_UNKNOWN',
        `${what} of ${zone} was not seen queried within ${days(window)}, but the query analytics did not cover all that time (a secondary not connected to the collector): whether it is still in use cannot be told`,
      );
  }
  return found;
}

/** the findings that refuse a plan on a zone with strictChecks, unless forced: those that say a name is in use */
export const refusesUnforced = (finding: Pick<ErrorDetail, 'code'>): boolean =>
  finding.code === 'RRSET_IN_USE' || finding.code === 'DELEGATION_IN_USE';
