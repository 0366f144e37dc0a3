import DataLoader from 'dataloader';
import type { Sql } from '../db/pool';
import type { ConnectionValue } from './types/connection';
import {
  countDomains,
  countRecords,
  domainPagesByUserIds,
  PagedRows,
  PerParentPage,
  recordPagesOfDomains,
  NestedRecordFilter,
  DomainRow,
  domainsByIds,
  domainsByUserIds,
  RecordRow,
  recordsGroupedByDomain,
  UserRow,
  usersByIds,
  ZoneRef,
} from '../repositories/read-model';
import type { ReadRules } from '../auth/policy';

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
  return (args: A): L => {
    const key = JSON.stringify(args);
    let loader = loaders.get(key);
    if (!loader) loaders.set(key, (loader = make(args)));
    return loader;
  };
}

/**
 * Each parent's page as a connection. The total comes with the page's rows; a parent whose page is empty
 * (no rows, or a cursor past the last) is counted on its own, and only if `totalCount` is asked for.
 */
function connectionsOf<T extends { id: number }>(
  parentIds: readonly number[],
  paged: PagedRows<T>,
  parentOf: (row: T) => number,
  first: number,
  countOne: (parentId: number) => Promise<number>,
): ConnectionValue<T>[] {
  const groups = groupBy(paged.rows, parentOf);
  return parentIds.map((parentId) => {
    const rows = groups.get(parentId) ?? [];
    const nodes = rows.slice(0, first);
    const total = paged.totals.get(parentId);
    return {
      nodes,
      pageInfo: { hasNextPage: rows.length > first, endCursor: nodes.length ? String(nodes[nodes.length - 1].id) : null },
      countAll: () => (total !== undefined ? Promise.resolve(total) : countOne(parentId)),
    };
  });
}

/** `readRules`: a restricted key's rules, so that nested lists and counts hold only what the key may read */
export function createLoaders(sql: Sql, readRules?: ReadRules) {
  return {
    userById: new DataLoader<number, UserRow | undefined>(async (ids) => {
      const byId = new Map((await usersByIds(sql, ids)).map((u) => [u.id, u]));
      return ids.map((id) => byId.get(id));
    }),
    domainById: new DataLoader<number, DomainRow | undefined>(async (ids) => {
      const byId = new Map((await domainsByIds(sql, ids)).map((d) => [d.id, d]));
      return ids.map((id) => byId.get(id));
    }),
    domainsByUserId: perArguments(
      (args: { first?: number }) =>
        new DataLoader<number, DomainRow[]>(async (userIds) => {
          const groups = groupBy(await domainsByUserIds(sql, userIds, args.first, readRules), (d) => d.userId);
          return userIds.map((id) => groups.get(id) ?? []);
        }),
    ),
    domainPagesByUserId: perArguments(
      (args: PerParentPage & { name?: string }) =>
        new DataLoader<number, ConnectionValue<DomainRow>>(async (userIds) =>
          connectionsOf(
            userIds,
            await domainPagesByUserIds(sql, userIds, args, { name: args.name, readRules }),
            (d) => d.userId,
            args.first,
            (userId) => countDomains(sql, { userId, name: args.name, readRules }),
          ),
        ),
    ),
    recordPagesByDomain: perArguments(
      (args: PerParentPage & NestedRecordFilter) =>
        new DataLoader<ZoneRef, ConnectionValue<RecordRow>, number>(
          async (domains) =>
            connectionsOf(
              domains.map((d) => d.id),
              await recordPagesOfDomains(sql, domains, args, { ...args, readRules }),
              (r) => r.domainId,
              args.first,
              (domainId) => countRecords(sql, { domainId, owner: args.owner, type: args.type, readRules }),
            ),
          { cacheKeyFn: (domain) => domain.id },
        ),
    ),
    // keyed by the zone (id and name), cached by its id: the records need the zone's name, which the parent has
    recordsByDomain: perArguments(
      (args: NestedRecordFilter) =>
        new DataLoader<ZoneRef, Iterable<RecordRow>, number>(
          async (domains) => {
            const groups = await recordsGroupedByDomain(sql, domains, { ...args, readRules });
            return domains.map((d) => groups.get(d.id) ?? []);
          },
          { cacheKeyFn: (domain) => domain.id },
        ),
    ),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
