import 'reflect-metadata';
import path from 'node:path';
import { buildSchema } from 'type-graphql';
import type { GraphQLSchema } from 'graphql';
import { ApiKeyResolver } from './resolvers/api-key.resolver';
import { DomainResolver } from './resolvers/domain.resolver';
import { PropagationResolver } from './resolvers/propagation.resolver';
import { RecordTypeResolver } from './resolvers/record-type.resolver';
import { RecordResolver } from './resolvers/record.resolver';
import { UserResolver } from './resolvers/user.resolver';
import { ZoneFileResolver } from './resolvers/zone-file.resolver';
import { ZoneChangesResolver } from './resolvers/zone-changes.resolver';
import { HistoryResolver } from './resolvers/history.resolver';

export const RESOLVERS = [UserResolver, DomainResolver, RecordResolver, ApiKeyResolver, RecordTypeResolver, PropagationResolver, ZoneFileResolver, ZoneChangesResolver, HistoryResolver] as const;
export const SCHEMA_FILE = path.resolve(__dirname, '..', '..', ...(__dirname.includes(`${path.sep}dist${path.sep}`) ? ['..'] : []), 'schema.graphql');

let built: Promise<GraphQLSchema> | undefined;

/** The schema, built once per process from the resolvers (class-validator checks every input's shape). */
export function getSchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({
    resolvers: RESOLVERS as unknown as [Function, ...Function[]],
    validate: { forbidUnknownValues: false },
    emitSchemaFile: false,
  });
  return built;
}
