/**
 * Read queries of the API, in one place. They return plain rows, not entities: lists and nested GraphQL
 * fields stay cheap (no identity map, no hydration), page by keyset (`id > after`), and batch by key lists
 * for the DataLoaders. Every query takes the caller's scope (`scopeUserId`) so that a user key never sees
 * another user's data.
 *
 * Under read-model/: the rows (`rows.ts`), the parts every statement is built of (`statement-parts.ts`), the
 * per-parent batches of the nested lists (`per-parent.ts`), the queries of users, zones and records, and the
 * packed records of the nested `Domain.records` lists (`packed-records.ts`: their text; what GraphQL answers of it
 * is written by src/graphql/fast-path/).
 */

export { type UserRow, type DomainRow, type RecordRow, type PageRequest, LAZY_TIMES, recordsWithZones } from './read-model/rows';
export { keyset, Params } from './read-model/statement-parts';
export type { PerParentPage } from './read-model/per-parent';
export { type UserFilter, listUsers, countUsers, usersByIds } from './read-model/users';
export {
  type DomainOrder,
  type DomainFilter,
  domainConditions,
  likePattern,
  listDomains,
  listDomainsWithOwnersAndFacts,
  type ListedZone,
  listDomainsWithApiFacts,
  type ApiListedZone,
  domainExists,
  countDomains,
  nestedListBounds,
  type ZoneListFacts,
  zoneListFacts,
  domainsByIds,
  domainPagesByUserIds,
  domainCountsByUserIds,
  usersWithZonesBeyond,
  domainsByUserIds,
} from './read-model/zones';
export {
  type RecordFilter,
  recordRuleCondition,
  RECORD_COLUMNS,
  listRecords,
  countRecords,
  type NestedRecordFilter,
  type ZoneRef,
  recordPagesOfDomains,
  recordCountsByDomainIds,
  domainsWithRecordsBeyond,
  recordsOfDomains,
  recordsGroupedByDomain,
  recordsByIdentity,
} from './read-model/records';
export { PackedRecords } from './read-model/packed-records';
