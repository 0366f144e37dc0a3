import 'reflect-metadata';
import path from 'node:path';
import { buildSchema } from 'type-graphql';
import { GraphQLSchema, GraphQLUnionType } from 'graphql';
import { ApiKeyResolver } from './resolvers/api-key.resolver';
import { TsigKeyResolver } from './resolvers/tsig-key.resolver';
import { DomainResolver } from './resolvers/domain.resolver';
import { PropagationResolver } from './resolvers/propagation.resolver';
import { RecordTypeResolver } from './resolvers/record-type.resolver';
import { RecordResolver } from './resolvers/record.resolver';
import { UserResolver } from './resolvers/user.resolver';
import { ZoneFileResolver } from './resolvers/zone-file.resolver';
import { ZoneChangesResolver } from './resolvers/zone-changes.resolver';
import { HistoryResolver } from './resolvers/history.resolver';
import { LiveResolver } from './resolvers/live.resolver';
import { installDirectFieldResolvers } from './direct-field-resolvers';

export const RESOLVERS = [UserResolver, DomainResolver, RecordResolver, ApiKeyResolver, RecordTypeResolver, PropagationResolver, ZoneFileResolver, ZoneChangesResolver, HistoryResolver, LiveResolver, TsigKeyResolver] as const;
export const SCHEMA_FILE = path.resolve(__dirname, '..', '..', ...(__dirname.includes(`${path.sep}dist${path.sep}`) ? ['..'] : []), 'schema.graphql');

let built: Promise<GraphQLSchema> | undefined;

/** The schema, built once per process from the resolvers (class-validator checks every input's shape). */
export function getSchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({
    resolvers: RESOLVERS as unknown as [Function, ...Function[]],
    validate: { forbidUnknownValues: false },
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
    installDirectFieldResolvers(schema, RESOLVERS);
    return withSyncTypeResolution(schema);
  });
  return built;
}

/**
 * type-graphql wraps a union's resolveType in an async function; graphql-jit (compiled-execution.ts) needs the
 * type at once. `Record.data` values carry their object type's name, so RecordData resolves synchronously.
 */
function withSyncTypeResolution(schema: GraphQLSchema): GraphQLSchema {
  const union = schema.getType('RecordData');
  if (union instanceof GraphQLUnionType) union.resolveType = (value) => (value as { __typename: string }).__typename;
  return schema;
}
