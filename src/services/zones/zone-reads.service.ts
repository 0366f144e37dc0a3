import { readRulesOf } from '../../auth/policy';
import {
  domainCountsByUserIds,
  domainPagesByUserIds,
  domainsByIds,
  domainsByUserIds,
  domainsWithRecordsBeyond,
  DomainRow,
  type ListedZone,
  NestedRecordFilter,
  PerParentPage,
  recordCountsByDomainIds,
  recordPagesOfDomains,
  RecordRow,
  recordsGroupedByDomain,
  UserRow,
  usersByIds,
  usersWithZonesBeyond,
  ZoneListFacts,
  zoneListFacts,
  ZoneRef,
} from '../../repositories/read-model';
import type { RequestContext } from '../context';
import { countsWindow } from './counts-window';

export type { DomainRow, ListedZone, PerParentPage, RecordRow, UserRow, ZoneListFacts, ZoneRef };
/**
 * a nested record list's filter as its field gives it: the caller's read rules are the service's to add, and its
 * counts' windows as asked (`until`: now when absent) the service's to check
 */
export type NestedRecordArgs = Omit<NestedRecordFilter, 'readRules' | 'counts'> & { counts?: readonly { since: Date; until?: Date }[] };
/** a nested record list's filter where only the records are read (pages, their bounds and counts) */
export type NestedRecordRows = Omit<NestedRecordArgs, 'counts'>;

/**
 * The nested reads of the zone model for a batch of parents (User.domains, Domain.user, Domain.records,
 * Record.domain and their connections): GraphQL's loaders gather the parents of one level of a query and call
 * one method here, one SQL statement per level however many rows it returns.
 *
 * The service decides what the caller reads: a restricted key's read rules (docs/least-privilege.md) narrow
 * every child list and count to the zones and records they name. Parents come by id from a level the caller
 * was already allowed to read (a zone's user, a record's zone), so those look-ups take no rule of their own.
 */
export class ZoneReadsService {
  /** users by id, in no particular order; an id with no user is left out */
  usersByIds(ctx: RequestContext, ids: readonly number[]): Promise<UserRow[]> {
    return usersByIds(ctx.db, ids);
  }

  /**
   * what a zone list shows of each zone (record count, DNSSEC state), for zones the caller has already read (the
   * list's own rows), in one statement
   */
  listFactsOf(ctx: RequestContext, ids: readonly number[]): Promise<Map<number, ZoneListFacts>> {
    return zoneListFacts(ctx.db, ids);
  }

  /** zones by id, in no particular order; an id with no zone is left out */
  domainsByIds(ctx: RequestContext, ids: readonly number[]): Promise<DomainRow[]> {
    return domainsByIds(ctx.db, ids);
  }

  /** each user's first `perUser` zones the caller may read (all of them without it), in id order */
  domainsOfUsers(ctx: RequestContext, userIds: readonly number[], perUser?: number): Promise<DomainRow[]> {
    return domainsByUserIds(ctx.db, userIds, perUser, readRulesOf(ctx.principal.policy));
  }

  /** a page of each user's zones the caller may read: `first + 1` after the cursor (the extra one: a next page follows) */
  domainPagesOfUsers(ctx: RequestContext, userIds: readonly number[], page: PerParentPage, name?: string): Promise<DomainRow[]> {
    return domainPagesByUserIds(ctx.db, userIds, page, { name, readRules: readRulesOf(ctx.principal.policy) });
  }

  /** the users whose zones the caller may read go on past their anchors (ids) on one side */
  usersWithZonesBeyond(
    ctx: RequestContext,
    anchors: ReadonlyMap<number, number | undefined>,
    side: 'after' | 'before',
    name?: string,
  ): Promise<Set<number>> {
    return usersWithZonesBeyond(ctx.db, anchors, side, { name, readRules: readRulesOf(ctx.principal.policy) });
  }

  /** how many zones of each user the caller may read (a user without any: not in the map) */
  domainCountsOfUsers(ctx: RequestContext, userIds: readonly number[], name?: string): Promise<Map<number, number>> {
    return domainCountsByUserIds(ctx.db, userIds, { name, readRules: readRulesOf(ctx.principal.policy) });
  }

  /** each zone's records the caller may read, grouped by zone id, in id order (`perDomain` of each at most) */
  recordsOfZones(ctx: RequestContext, zones: readonly ZoneRef[], filter: NestedRecordArgs): Promise<Map<number, Iterable<RecordRow>>> {
    // each record's RRset counts, when asked, are read with the records: the records are the caller's to read,
    // and so are their counts
    const counts = filter.counts?.map(countsWindow);
    return recordsGroupedByDomain(ctx.db, zones, { ...filter, counts, readRules: readRulesOf(ctx.principal.policy) });
  }

  /** a page of each zone's records the caller may read: `first + 1` after the cursor */
  recordPagesOfZones(ctx: RequestContext, zones: readonly ZoneRef[], page: PerParentPage, filter: NestedRecordRows): Promise<RecordRow[]> {
    return recordPagesOfDomains(ctx.db, zones, page, { ...filter, readRules: readRulesOf(ctx.principal.policy) });
  }

  /** the zones whose records the caller may read under the filter go on past their anchors (ids) on one side */
  zonesWithRecordsBeyond(
    ctx: RequestContext,
    zones: readonly ZoneRef[],
    anchors: ReadonlyMap<number, number | undefined>,
    side: 'after' | 'before',
    filter: NestedRecordRows,
  ): Promise<Set<number>> {
    return domainsWithRecordsBeyond(ctx.db, zones, anchors, side, { ...filter, readRules: readRulesOf(ctx.principal.policy) });
  }

  /** how many records of each zone the caller may read under the filter (a zone without any: not in the map) */
  recordCountsOfZones(ctx: RequestContext, zoneIds: readonly number[], filter: NestedRecordRows): Promise<Map<number, number>> {
    return recordCountsByDomainIds(ctx.db, zoneIds, { ...filter, readRules: readRulesOf(ctx.principal.policy) });
  }
}
