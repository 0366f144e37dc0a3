import { GraphQLFieldResolver, GraphQLResolveInfo, GraphQLSchema, isObjectType } from 'graphql';
import type { GraphQLContext } from '../context';
import type { NestedDomainPageArgs, NestedListArgs, NestedRecordPageArgs, NestedRecordsArgs } from '../inputs/page.args';
import { DomainResolver } from '../resolvers/domain.resolver';
import { HealthResolver } from '../resolvers/health.resolver';
import { PropagationResolver } from '../resolvers/propagation.resolver';
import { ZoneListingResolver } from '../resolvers/zone-listing.resolver';
import { RecordPermissionsResolver } from '../resolvers/permissions.resolver';
import { RecordResolver } from '../resolvers/record.resolver';
import { UserResolver, type PlainRecordListBelow } from '../resolvers/user.resolver';
import { ZoneChangeInput, ZoneChangesResolver } from '../resolvers/zone-changes.resolver';
import type { DomainType } from '../types/domain.type';
import type { RecordType } from '../types/record.type';
import type { UserType } from '../types/user.type';
import type { RecordRow } from '../../services/zones/zone-reads.service';
import { plainRecordListsBelow } from './plain-record-lists';

/** One field of the schema called directly: its object type, its name, and what answers it. */
export interface DirectFieldResolver {
  type: string;
  field: string;
  resolve: GraphQLFieldResolver<unknown, GraphQLContext>;
}

/**
 * A table entry, typed by the field's parent and arguments as the resolver method declares them: the
 * function hands them over in the method's order, so a change of the method's parameters fails the type check
 * here rather than at run time.
 */
function direct<TRoot, TArgs = Record<string, never>>(
  type: string,
  field: string,
  resolve: (root: TRoot, args: TArgs, context: GraphQLContext, info: GraphQLResolveInfo) => unknown,
): DirectFieldResolver {
  const call = resolve as GraphQLFieldResolver<unknown, GraphQLContext>;
  // a resolver's error is a rejected promise, as type-graphql's wrapper (an `async` function) makes it: thrown
  // as it happens, graphql-js meets it before the promises of its siblings, and when several items of a list
  // fail, which one nulls the list and is reported would depend on the fast paths being on
  const rejecting: GraphQLFieldResolver<unknown, GraphQLContext> = (root, args, context, info) => {
    try {
      return call(root, args, context, info);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  };
  return { type, field, resolve: rejecting };
}

/**
 * the arguments of the plain record lists right below a list of zones (plain-record-lists.ts), for its resolver to
 * read ahead with the zones; none where one cannot be read (its own resolver then reports the error where it is)
 */
function plainListsBelow(info: GraphQLResolveInfo, ctx: GraphQLContext): PlainRecordListBelow[] {
  try {
    return plainRecordListsBelow(info, ctx);
  } catch {
    return [];
  }
}

// the resolver classes hold no state: one instance of each answers every call, as type-graphql's does
const users = new UserResolver();
const domains = new DomainResolver();
const records = new RecordResolver();
const zoneChanges = new ZoneChangesResolver();
const recordPermissions = new RecordPermissionsResolver();
const zoneListing = new ZoneListingResolver();
const health = new HealthResolver();
const propagation = new PropagationResolver();

/**
 * The fields resolved once per parent row of a large answer, called without type-graphql's per-call wrapper.
 *
 * type-graphql runs every field resolver through one generic wrapper. Per call it copies a parent row into a
 * new instance of the object type's class, builds the resolver's arguments into an instance of their class,
 * and checks them in an `async` function even when validation is off, so each call waits on a `Promise.all`
 * and a `then`. A nested field resolves once per parent row: `users { domains { records } }` calls
 * `Domain.records` once per zone, 1,000 times for one answer of the bench, and a client asking for
 * `records { data }` calls `Record.data` once per record. That wrapper was a third of the bytes such an answer
 * allocated, and garbage collection is what holds its latency back (docs/performance.md, «GraphQL execution»).
 *
 * Each entry calls the same resolver method type-graphql calls (so the same loader and service), with what
 * GraphQL hands over as it is: the parent row itself (a plain row: the copy would differ only in its
 * prototype), GraphQL's argument object (these arguments are scalars and enums taken with
 * `{ validate: false }`: their class instance would hold the same values), the context. An entry belongs here
 * only if that holds for it; any other field keeps type-graphql's wrapper.
 *
 * One root field is here for the same wrapper's cost once per item of an argument: `applyZoneChanges`, whose
 * `changes` (taken with `{ validate: false }`; ZoneChangeInput has no rules, test/unit/check-input.test.ts keeps
 * it so, and no method) type-graphql copied into a new ZoneChangeInput each, looking up every field's type in its
 * metadata for each: 1.8 ms of a set of 1,000 changes, by GraphQL and by REST (which runs the operation). Its
 * resolver reads the same values from GraphQL's own objects.
 */
export const DIRECT_FIELD_RESOLVERS: readonly DirectFieldResolver[] = [
  direct<UserType, NestedListArgs>('User', 'domains', (user, args, ctx, info) =>
    users.domains(args, user, ctx, plainListsBelow(info, ctx)),
  ),
  direct<UserType, NestedDomainPageArgs>('User', 'domainsConnection', (user, args, ctx, info) =>
    users.domainsConnection(args, user, ctx, info),
  ),
  direct<DomainType>('Domain', 'user', (domain, _args, ctx) => domains.user(domain, ctx)),
  direct<DomainType, NestedRecordsArgs>('Domain', 'records', (domain, args, ctx) => domains.records(args, domain, ctx)),
  direct<DomainType, NestedRecordPageArgs>('Domain', 'recordsConnection', (domain, args, ctx, info) =>
    domains.recordsConnection(args, domain, ctx, info),
  ),
  // what a zone list shows of each zone (the console's: 50 zones, these four fields each)
  direct<DomainType>('Domain', 'recordCount', (domain, _args, ctx) => zoneListing.recordCount(domain, ctx)),
  direct<DomainType>('Domain', 'dnssecState', (domain, _args, ctx) => zoneListing.dnssecState(domain, ctx)),
  direct<DomainType>('Domain', 'dnssecStatus', (domain, _args, ctx) => zoneListing.dnssecStatus(domain, ctx)),
  direct<DomainType>('Domain', 'propagation', (domain, _args, ctx) => propagation.propagation(domain, ctx)),
  direct<DomainType>('Domain', 'health', (domain, _args, ctx, info) => health.health(domain, ctx, info)),
  direct<RecordType>('Record', 'recordType', (record) => records.recordType(record)),
  direct<RecordType>('Record', 'data', (record) => records.data(record)),
  direct<RecordType & Pick<RecordRow, 'zoneRow'>>('Record', 'domain', (record, _args, ctx) => records.domain(record, ctx)),
  direct<RecordType & Pick<RecordRow, 'zoneRow'>>('Record', 'permissions', (record, _args, ctx) =>
    recordPermissions.permissions(record, ctx),
  ),
  direct<
    unknown,
    { zone: string; changes: ZoneChangeInput[]; expectSerial?: number | null; dryRun?: boolean | null; force?: boolean | null }
  >('Mutation', 'applyZoneChanges', (_root, args, ctx) =>
    zoneChanges.applyZoneChanges(args.zone, args.changes, args.expectSerial, ctx, args.dryRun, args.force),
  ),
];

/**
 * Puts the table's resolvers on the built schema (graphql-js's public `resolve` of each field); the switch is
 * FAST_PATHS (src/graphql/schema.ts). An entry whose type or field the schema lacks is a mistake of the
 * table, refused here at start-up. Returns the `Type.field` names installed.
 */
export function installDirectFieldResolvers(
  schema: GraphQLSchema,
  table: readonly DirectFieldResolver[] = DIRECT_FIELD_RESOLVERS,
): string[] {
  const installed: string[] = [];
  for (const entry of table) {
    const type = schema.getType(entry.type);
    const field = isObjectType(type) ? type.getFields()[entry.field] : undefined;
    if (!field) throw new Error(`direct field resolver ${entry.type}.${entry.field}: the schema has no such field`);
    field.resolve = entry.resolve;
    installed.push(`${entry.type}.${entry.field}`);
  }
  return installed;
}
