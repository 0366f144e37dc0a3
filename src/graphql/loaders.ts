import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  NestedRecordFilter,
  DomainRow,
  domainsByIds,
  domainsByUserIds,
  RecordRow,
  recordsOfDomains,
  UserRow,
  usersByIds,
  ZoneRef,
} from '../repositories/read-model';

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

export function createLoaders(em: EntityManager) {
  return {
    userById: new DataLoader<number, UserRow | undefined>(async (ids) => {
      const byId = new Map((await usersByIds(em, ids)).map((u) => [u.id, u]));
      return ids.map((id) => byId.get(id));
    }),
    domainById: new DataLoader<number, DomainRow | undefined>(async (ids) => {
      const byId = new Map((await domainsByIds(em, ids)).map((d) => [d.id, d]));
      return ids.map((id) => byId.get(id));
    }),
    domainsByUserId: perArguments(
      (args: { first?: number }) =>
        new DataLoader<number, DomainRow[]>(async (userIds) => {
          const groups = groupBy(await domainsByUserIds(em, userIds, args.first), (d) => d.userId);
          return userIds.map((id) => groups.get(id) ?? []);
        }),
    ),
    // keyed by the zone (id and name), cached by its id: the records need the zone's name, which the parent has
    recordsByDomain: perArguments(
      (args: NestedRecordFilter) =>
        new DataLoader<ZoneRef, RecordRow[], number>(
          async (domains) => {
            const groups = groupBy(await recordsOfDomains(em, domains, args), (r) => r.domainId);
            return domains.map((d) => groups.get(d.id) ?? []);
          },
          { cacheKeyFn: (domain) => domain.id },
        ),
    ),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
