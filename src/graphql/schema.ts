import 'reflect-metadata';
import path from 'node:path';
import { buildSchema } from 'type-graphql';
import { GraphQLSchema, GraphQLUnionType } from 'graphql';
import { ApiKeyResolver } from './resolvers/api-key.resolver';
import { EventsResolver } from './resolvers/events.resolver';
import { TsigKeyResolver } from './resolvers/tsig-key.resolver';
import { AuditResolver } from './resolvers/audit.resolver';
import { DomainResolver } from './resolvers/domain.resolver';
import { PropagationResolver } from './resolvers/propagation.resolver';
import { HealthResolver } from './resolvers/health.resolver';
import { RecordTypeResolver } from './resolvers/record-type.resolver';
import { RecordRemovalResolver, RecordResolver } from './resolvers/record.resolver';
import { UserResolver } from './resolvers/user.resolver';
import { ZoneFileResolver } from './resolvers/zone-file.resolver';
import { ZoneChangesResolver, ZoneChangeWarningResolver } from './resolvers/zone-changes.resolver';
import { HistoryResolver, ZoneChangeEntryResolver, ZoneChangesResultResolver } from './resolvers/history.resolver';
import { LiveResolver, ZoneChangedEventResolver } from './resolvers/live.resolver';
import { DnssecResolver, DnssecStateResolver } from './resolvers/dnssec.resolver';
import { ZoneSecondariesResolver } from './resolvers/zone-secondaries.resolver';
import { NameserverSetFieldsResolver, NameserverSetResolver } from './resolvers/nameserver-set.resolver';
import { ViewResolver } from './resolvers/view.resolver';
import { PeopleResolver } from './resolvers/people.resolver';
import { OperatorResolver } from './resolvers/operator.resolver';
import { ZoneTransferResolver } from './resolvers/zone-transfer.resolver';
import { RecordTemplateResolver } from './resolvers/record-template.resolver';
import { AliasDomainResolver, AliasRecordResolver } from './resolvers/alias.resolver';
import { ChangedRecordResolver, DisabledRecordsDomainResolver } from './resolvers/disabled-record.resolver';
import { DomainPermissionsResolver, RecordPermissionsResolver, ViewerResolver } from './resolvers/permissions.resolver';
import { ZoneListingResolver } from './resolvers/zone-listing.resolver';
import { AttentionResolver } from './resolvers/attention.resolver';
import { SteeredRrsetResolver, SteeringCheckResolver, SteeringResolver, SteeringVantagesResolver } from './resolvers/steering.resolver';
import { ProtectedRrsetsResolver } from './resolvers/protected-rrsets.resolver';
import { ChangeRequestsResolver } from './resolvers/change-requests.resolver';
import { OperationLimitsResolver } from './resolvers/operation-limits.resolver';
import {
  QueryAnalyticsDomainResolver,
  QueryAnalyticsRecordResolver,
  QueryAnalyticsUserResolver,
} from './resolvers/query-analytics.resolver';
import { checkArgument, installDirectFieldResolvers } from './fast-path';

export const RESOLVERS = [
  UserResolver,
  AttentionResolver,
  DomainResolver,
  RecordResolver,
  RecordRemovalResolver,
  ApiKeyResolver,
  RecordTypeResolver,
  PropagationResolver,
  HealthResolver,
  QueryAnalyticsDomainResolver,
  QueryAnalyticsUserResolver,
  QueryAnalyticsRecordResolver,
  ZoneFileResolver,
  ZoneChangesResolver,
  ZoneChangeWarningResolver,
  HistoryResolver,
  ZoneChangeEntryResolver,
  ZoneChangesResultResolver,
  LiveResolver,
  ZoneChangedEventResolver,
  TsigKeyResolver,
  DnssecResolver,
  DnssecStateResolver,
  AuditResolver,
  EventsResolver,
  ZoneSecondariesResolver,
  NameserverSetResolver,
  NameserverSetFieldsResolver,
  ViewResolver,
  PeopleResolver,
  OperatorResolver,
  ZoneTransferResolver,
  RecordTemplateResolver,
  AliasDomainResolver,
  AliasRecordResolver,
  DisabledRecordsDomainResolver,
  ChangedRecordResolver,
  ViewerResolver,
  DomainPermissionsResolver,
  RecordPermissionsResolver,
  ZoneListingResolver,
  SteeringResolver,
  SteeringCheckResolver,
  SteeringVantagesResolver,
  ProtectedRrsetsResolver,
  SteeredRrsetResolver,
  ChangeRequestsResolver,
  OperationLimitsResolver,
] as const;
export const SCHEMA_FILE = path.resolve(
  __dirname,
  '..',
  '..',
  ...(__dirname.includes(`${path.sep}dist${path.sep}`) ? ['..'] : []),
  'schema.graphql',
);

/** the schema per FAST_PATHS setting (a test process may run services with either) */
const built = new Map<boolean, Promise<GraphQLSchema>>();

/**
 * The schema, built once per process from the resolvers (class-validator checks every input's shape).
 * `fastPaths` (FAST_PATHS, docs/performance.md): the hot fields of DIRECT_FIELD_RESOLVERS are called
 * without type-graphql's per-call wrapper; off, every field goes through type-graphql as written.
 */
export function getSchema(fastPaths = true): Promise<GraphQLSchema> {
  const existing = built.get(fastPaths);
  if (existing) return existing;
  const schema = buildSchema({
    resolvers: RESOLVERS as unknown as [Function, ...Function[]],
    // every argument checked by its class's rules as type-graphql's own check would (fast-path/check-input.ts)
    validateFn: checkArgument,
    emitSchemaFile: false,
    // every subscription has a subscribe function of its own (LiveUpdates, fed by the journal through
    // LISTEN/NOTIFY); type-graphql's topic pub/sub is not used, and refuses if anything asks it for a topic
    pubSub: {
      publish() {
        throw new Error('subscriptions are not published by topic');
      },
      subscribe() {
        throw new Error('subscriptions are not published by topic');
      },
    },
  }).then((schema) => {
    if (fastPaths) installDirectFieldResolvers(schema);
    return withSyncTypeResolution(schema);
  });
  built.set(fastPaths, schema);
  return schema;
}

/**
 * type-graphql wraps a union's resolveType in an async function; graphql-jit (fast-path/compiled-execution.ts) needs the
 * type at once. `Record.data` values carry their object type's name, so RecordData resolves synchronously.
 */
function withSyncTypeResolution(schema: GraphQLSchema): GraphQLSchema {
  const union = schema.getType('RecordData');
  if (union instanceof GraphQLUnionType) union.resolveType = (value) => (value as { __typename: string }).__typename;
  return schema;
}
