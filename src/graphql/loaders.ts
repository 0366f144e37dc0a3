import DataLoader from 'dataloader';
import { nodesOf, probeOf, sidesToProbe, type PageWindow, type SidesAsked } from './pages';
import type { RequestContext } from '../services/context';
import type {
  DomainRow,
  ListedZone,
  NestedRecordArgs,
  PerParentPage,
  RecordRow,
  UserRow,
  ZoneListFacts,
  ZoneRef,
} from '../services/zones/zone-reads.service';
import type { PropagationStatus } from '../services/transfers/propagation-status.service';
import type { ZoneHealth } from '../services/operations/health.service';
import type { ZoneChangePolicy } from '../repositories/protected-rrsets';
import type { VoteRow } from '../repositories/steering-vantages';
import type { Services } from '../services';
import type { AccountQueryDimension, QueryDimension, ReadMarks } from '../repositories/query-analytics';
import type { QueryWindowInput, ZoneQueriesValue } from '../services/operations/query-analytics.service';
import { rrsetKey } from '../repositories/rrset-comments';

function groupBy<T, K>(rows: T[], key: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

/**
 * Request-scoped DataLoaders for the nested fields (User.domains, Domain.user, Domain.records,
 * Record.domain): one SQL statement per level of a query, however many rows it returns.
 */
/** One DataLoader per distinct argument set of a nested field (e.g. `records(type: "MX")`), made on first use. */
function perArguments<A, L>(make: (args: A) => L) {
  const loaders = new Map<string, L>();
  // the same arguments object again (a list level's filter, asked once per zone) is found without writing it out
  const byObject = new WeakMap<object, L>();
  return (args: A): L => {
    const known = typeof args === 'object' && args !== null ? byObject.get(args) : undefined;
    if (known) return known;
    const key = JSON.stringify(args);
    let loader = loaders.get(key);
    if (!loader) loaders.set(key, (loader = make(args)));
    if (typeof args === 'object' && args !== null) byObject.set(args, loader);
    return loader;
  };
}

/** what each parent's page reads (pagePerParent reads one row more, to tell whether the list goes on that way) */
const perParentPage = (key: PageWindow): PerParentPage => ({ first: key.size, after: key.after, before: key.before, fromEnd: key.fromEnd });

/** a parent's page as its batch read it: its rows as read, what lies past its sides where probed, its count */
export interface ParentPage<T> {
  rows: T[];
  beyond: { next?: boolean; previous?: boolean };
  countAll: () => Promise<number>;
}

/** what a batch of nested pages is asked: the page, and which sides of it the selection asks about (`sidesAsked`) */
export type NestedPageKey = PageWindow & { asked: SidesAsked };

/**
 * Each parent's page (its rows as read; `pageOf` makes the connection with the parent's cursors). Its total is
 * counted only if `totalCount` is asked for, for every parent that asks in one statement (`counts`, a
 * DataLoader of the same arguments); what lies past a page's sides, where its read could not tell and the
 * selection asks, by one statement per side for the whole batch (`beyond`).
 */
async function parentPages<T extends { id: number }>(
  parentIds: readonly number[],
  rows: T[],
  parentOf: (row: T) => number,
  key: NestedPageKey,
  counts: DataLoader<number, number>,
  beyond: (anchors: Map<number, number | undefined>, side: 'after' | 'before') => Promise<Set<number>>,
): Promise<ParentPage<T>[]> {
  const groups = groupBy(rows, parentOf);
  const pages = parentIds.map((parentId) => ({ parentId, rows: groups.get(parentId) ?? [] }));
  const probed = { next: new Map<number, number | undefined>(), previous: new Map<number, number | undefined>() };
  for (const page of pages) {
    const probes = sidesToProbe(key, page.rows.length > key.size, key.asked);
    const nodes = probes.next || probes.previous ? nodesOf(key, page.rows) : [];
    if (probes.next) probed.next.set(page.parentId, probeOf(key, nodes, 'next').after);
    if (probes.previous) probed.previous.set(page.parentId, probeOf(key, nodes, 'previous').before);
  }
  const [next, previous] = await Promise.all([
    probed.next.size ? beyond(probed.next, 'after') : undefined,
    probed.previous.size ? beyond(probed.previous, 'before') : undefined,
  ]);
  return pages.map(({ parentId, rows }) => ({
    rows,
    beyond: { next: next?.has(parentId), previous: previous?.has(parentId) },
    countAll: () => counts.load(parentId),
  }));
}

/** each parent's count, 0 for a parent the counts leave out (it has no children) */
const countsOf = (count: (parentIds: readonly number[]) => Promise<Map<number, number>>) =>
  new DataLoader<number, number>(async (parentIds) => {
    const counts = await count(parentIds);
    return parentIds.map((id) => counts.get(id) ?? 0);
  });

/**
 * What a zone list read of one listed zone with its page (DomainResolver.domains): its owner and facts, and its
 * propagation and health when the list's selection shows them (absent: not read with the list). The health has
 * its findings only if the list asked them: the same zone met elsewhere in the answer (a record's `domain`)
 * may ask them where the list did not.
 */
export interface ListedZoneReads {
  user: UserRow;
  facts: ZoneListFacts;
  propagation?: PropagationStatus;
  health?: { value: ZoneHealth; withFindings: boolean };
}

/** what a zone list's selection shows of each zone beyond its owner and facts */
export interface ListedZoneFields {
  /** its propagation (read with the page) */
  propagation: boolean;
  /** its health, with the findings (read for the page after it) or without (read with the page) */
  health?: { findings: boolean };
}

/** the services the loaders read through */
export type LoaderServices = Pick<
  Services,
  'zoneReads' | 'propagation' | 'health' | 'protectedRrsets' | 'aliases' | 'steering' | 'queryAnalytics' | 'rrsetComments'
>;

/**
 * The loaders only batch: the parents of one level go to one method of the zone reads service (one statement),
 * which decides what the caller may read (a restricted key's read rules, docs/least-privilege.md).
 *
 * Every loader of an operation is here, on its context, and none in a WeakMap keyed by the context: V8's
 * young-generation collection holds a WeakMap's values strongly, and a loader's batch function reaches the
 * context, its key; so each operation's context, with all it reached, outlived every scavenge until the next full
 * collection (bench/FINDINGS.md, «The zone list's young generation»).
 */
export function createLoaders(ctx: RequestContext, services: LoaderServices) {
  const { zoneReads: reads, propagation } = services;
  /**
   * Each zone's nested record list (by its filter), read right after the zones of a User.domains batch whose
   * selection holds that list (user.resolver.ts): Domain.records answers it as it is, without a promise, a
   * DataLoader load and graphql-jit's handling of a promised value per zone. In the nested answer of the bench
   * (100 users × 10 zones) those were about a fifth of what an answer allocated (bench/FINDINGS.md). The read is
   * recordsByDomain's own (the same service method, read rules and statement); if it fails, nothing is kept and
   * each list goes through recordsByDomain, which reports its error where the list is, as before.
   */
  const recordsReadWithZones = perArguments((_filter: NestedRecordArgs) => new Map<number, Iterable<RecordRow>>());
  const readRecordsWithZones = async (filter: NestedRecordArgs, zones: readonly ZoneRef[]): Promise<void> => {
    if (zones.length === 0) return;
    let groups: Map<number, Iterable<RecordRow>>;
    try {
      groups = await reads.recordsOfZones(ctx, zones, filter);
    } catch {
      return;
    }
    const read = recordsReadWithZones(filter);
    for (const zone of zones) read.set(zone.id, groups.get(zone.id) ?? []);
  };
  /**
   * Each listed zone's fields as the list read them (readWithZoneList): a field of a listed zone answers from here
   * as it is, without a promise and a DataLoader load per zone; graphql-jit's handling of a promised value for
   * each of five fields of fifty zones was a third of what the console's zone list allocated (bench/FINDINGS.md,
   * «The zone list's young generation»). A zone reached otherwise goes through the loaders.
   */
  const listedZones = new Map<number, ListedZoneReads>();
  /**
   * Keeps a page of zones with what the list read with it: their owners, facts and health states, and their
   * propagation when the list shows it; reads the health findings if it shows them (one statement for the page,
   * as their loader would batch them). If that read fails, nothing of it is kept: each zone's health then goes
   * through its loader, which reports the error where it is.
   */
  const readWithZoneList = async (listed: readonly ListedZone[], fields: ListedZoneFields): Promise<void> => {
    if (listed.length === 0) return;
    const findings = fields.health?.findings
      ? await services.health
          .ofZones(
            ctx.db,
            listed.map(({ zone }) => zone),
          )
          .catch(() => undefined)
      : undefined;
    listed.forEach(({ zone, user, facts, health, propagation }, i) =>
      listedZones.set(zone.id, {
        user,
        facts,
        propagation: propagation && services.propagation.statusOf(propagation),
        health:
          fields.health === undefined
            ? undefined
            : fields.health.findings
              ? findings && { value: findings[i], withFindings: true }
              : { value: { zone: zone.name, checkedAt: health.checkedAt, state: health.state, findings: [] }, withFindings: false },
      }),
    );
  };
  // keyed by the zone (id and name), cached by its id: the records need the zone's name, which the parent has
  const recordsByDomain = perArguments(
    (args: NestedRecordArgs) =>
      new DataLoader<ZoneRef, Iterable<RecordRow>, number>(
        async (domains) => {
          const groups = await reads.recordsOfZones(ctx, domains, args);
          return domains.map((d) => groups.get(d.id) ?? []);
        },
        { cacheKeyFn: (domain) => domain.id },
      ),
  );
  let defaultCountsSince: Date | undefined;
  /**
   * a record's counts' window start without `since`: the last day, as of the operation's first record that asks
   * (the same for every record of the operation, however its counts are read)
   */
  const countsSince = () => (defaultCountsSince ??= new Date(Date.now() - 86_400_000));
  let analyticsMarks: Promise<ReadMarks> | undefined;
  /** up to where the query counts were rolled up, read once per operation: its windows read alike */
  const marks = () => (analyticsMarks ??= services.queryAnalytics.readMarks(ctx));
  return {
    listedZones,
    readWithZoneList,
    /** Domain.queries over the zones of one level (by its arguments): two statements */
    zoneQueries: perArguments(
      (args: QueryWindowInput & { by: QueryDimension[] }) =>
        new DataLoader<number, ZoneQueriesValue>(async (ids) => {
          const byZone = await services.queryAnalytics.zoneQueries(ctx, ids, args, args.by, await marks());
          return ids.map((id) => byZone.get(id)!);
        }),
    ),
    /** User.queries over the accounts of one level (by its arguments): two statements, whatever their zones */
    accountQueries: perArguments(
      (args: QueryWindowInput & { by: AccountQueryDimension[] }) =>
        new DataLoader<number, ZoneQueriesValue>(async (ids) => {
          const byUser = await services.queryAnalytics.accountQueries(ctx, ids, args, args.by, await marks());
          return ids.map((id) => byUser.get(id)!);
        }),
    ),
    /** Domain.topQueriedNames over the zones of one level: one statement */
    topQueriedNames: perArguments(
      (args: Omit<QueryWindowInput, 'step'> & { first: number; rcode?: string }) =>
        new DataLoader<number, { owner: string; count: number }[]>(async (ids) => {
          const byZone = await services.queryAnalytics.topNames(ctx, ids, args, args.first, args.rcode, await marks());
          return ids.map((id) => byZone.get(id) ?? []);
        }),
    ),
    countsSince,
    /** Record.queryCount and Record.lastQueried over the records of one level: one statement, by RRset */
    rrsetQueries: perArguments((args: { since?: Date; until?: Date }) => {
      const window = { since: args.since ?? countsSince(), until: args.until };
      return new DataLoader<{ zoneId: number; owner: string; type: string }, { count: number; lastQueried: Date | null }, string>(
        async (rrsets) => services.queryAnalytics.rrsets(ctx, rrsets, window, await marks()),
        { cacheKeyFn: (rrset) => `${rrset.zoneId}\u0000${rrset.owner}\u0000${rrset.type}` },
      );
    }),
    /** a zone list's facts of each zone (Domain.recordCount, Domain.dnssecState): one statement per level */
    zoneFactsById: new DataLoader<number, ZoneListFacts | undefined>(async (ids) => {
      const facts = await reads.listFactsOf(ctx, ids);
      return ids.map((id) => facts.get(id));
    }),
    /** Domain.propagation over the zones of one level: two statements, not two per zone */
    propagationById: new DataLoader<number, PropagationStatus | undefined>(async (ids) => {
      const statuses = await propagation.ofZones(ctx.db, ids);
      return ids.map((id) => statuses.get(id));
    }),
    /**
     * Domain.health over the zones of one level: one statement, with the findings or (a list that shows only
     * each zone's state, as the console's zone list) without them
     */
    healthOfZones: perArguments(
      (findings: boolean) =>
        new DataLoader<ZoneRef, ZoneHealth>((zones) => services.health.ofZones(ctx.db, zones, findings), { cache: false }),
    ),
    /** Domain.strictChecks and Domain.requiredApprovals over the zones of one level: one statement */
    changePolicyOfZones: new DataLoader<{ id: number }, ZoneChangePolicy>((zones) => services.protectedRrsets.changePolicyOf(ctx, zones), {
      cache: false,
    }),
    /** SteeringCheck.votes over the zones of one level: one statement */
    steeringVotesOfZone: new DataLoader<number, VoteRow[]>(async (ids) => {
      const byZone = await services.steering.votesOfZones(ctx, ids);
      return ids.map((id) => byZone.get(id) ?? []);
    }),
    /**
     * Domain.soa over the zones of one level: one statement. Not cached: a write's answer reads the SOA its serial
     * step left, however many writes of the zone the operation holds (`zoneNow`)
     */
    soaByZone: new DataLoader<ZoneRef, RecordRow | undefined>(
      async (zones) => {
        const byZone = await reads.recordsOfZones(ctx, zones, { type: 'SOA', perDomain: 1 });
        return zones.map((zone) => [...(byZone.get(zone.id) ?? [])][0]);
      },
      { cache: false },
    ),
    /** Record.derived over the records of one level: one statement */
    derivedById: new DataLoader<number, boolean>(async (ids) => {
      const derived = await services.aliases.derivedAmong(ctx.db, ids);
      return ids.map((id) => derived.has(id));
    }),
    /** Record.comment over the records of one level: their RRsets' comments, one statement */
    commentOfRrset: new DataLoader<{ domainId: number; owner: string; type: string }, string | null, string>(
      async (rrsets) => {
        const texts = await services.rrsetComments.textsOfRecords(ctx, rrsets);
        return rrsets.map((r) => texts.get(rrsetKey(r.domainId, r.owner, r.type)) ?? null);
      },
      { cacheKeyFn: (r) => rrsetKey(r.domainId, r.owner, r.type) },
    ),
    userById: new DataLoader<number, UserRow | undefined>(async (ids) => {
      const byId = new Map((await reads.usersByIds(ctx, ids)).map((u) => [u.id, u]));
      return ids.map((id) => byId.get(id));
    }),
    domainById: new DataLoader<number, DomainRow | undefined>(async (ids) => {
      const byId = new Map((await reads.domainsByIds(ctx, ids)).map((d) => [d.id, d]));
      return ids.map((id) => byId.get(id));
    }),
    domainsByUserId: perArguments(
      (args: { first?: number; records?: NestedRecordArgs[] }) =>
        new DataLoader<number, DomainRow[]>(async (userIds) => {
          const zones = await reads.domainsOfUsers(ctx, userIds, args.first);
          for (const filter of args.records ?? []) await readRecordsWithZones(filter, zones);
          const groups = groupBy(zones, (d) => d.userId);
          return userIds.map((id) => groups.get(id) ?? []);
        }),
    ),
    domainPagesByUserId: perArguments((args: NestedPageKey & { name?: string }) => {
      const counts = countsOf((userIds) => reads.domainCountsOfUsers(ctx, userIds, args.name));
      return new DataLoader<number, ParentPage<DomainRow>>(async (userIds) =>
        parentPages(
          userIds,
          await reads.domainPagesOfUsers(ctx, userIds, perParentPage(args), args.name),
          (d) => d.userId,
          args,
          counts,
          (anchors, side) => reads.usersWithZonesBeyond(ctx, anchors, side, args.name),
        ),
      );
    }),
    recordPagesByDomain: perArguments((args: NestedPageKey & NestedRecordArgs) => {
      const filter: NestedRecordArgs = { owner: args.owner, type: args.type };
      const counts = countsOf((domainIds) => reads.recordCountsOfZones(ctx, domainIds, filter));
      return new DataLoader<ZoneRef, ParentPage<RecordRow>, number>(
        async (domains) =>
          parentPages(
            domains.map((d) => d.id),
            await reads.recordPagesOfZones(ctx, domains, perParentPage(args), filter),
            (r) => r.domainId,
            args,
            counts,
            (anchors, side) => reads.zonesWithRecordsBeyond(ctx, domains, anchors, side, filter),
          ),
        { cacheKeyFn: (domain) => domain.id },
      );
    }),
    recordsReadWithZones,
    /** a zone's nested record list (Domain.records): as read with its zone's list, or through recordsByDomain */
    zoneRecords(filter: NestedRecordArgs, zone: ZoneRef): Iterable<RecordRow> | Promise<Iterable<RecordRow>> {
      return recordsReadWithZones(filter).get(zone.id) ?? recordsByDomain(filter).load(zone);
    },
    recordsByDomain,
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

/**
 * The zone as it is now, for what a write or a live event answers of it (its serial, its recordCount): what
 * this operation's loaders read of the zone before is forgotten first. An operation may hold several writes of
 * one zone (mutations run in order), and a subscription's events share one context for as long as it runs:
 * each answers the zone as it left it, which a client's cache then holds.
 */
export function zoneNow(loaders: Loaders, id: number): Promise<DomainRow | undefined> {
  forgetZone(loaders, id);
  return loaders.domainById.load(id);
}

/** forgets what this operation's loaders read of a zone, which a write has just changed */
export function forgetZone(loaders: Loaders, id: number): void {
  loaders.domainById.clear(id);
  loaders.zoneFactsById.clear(id);
  loaders.listedZones.delete(id);
}
