import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import type { GraphQLContext } from '../context';
import { answerBody } from './answer-body';
import { compiledExecution } from './compiled-execution';
import { serviceOperations, type ServiceOperationRunner } from './service-operations';

export { installDirectFieldResolvers } from './direct-field-resolvers';
export { checkArgument, checkInput } from './check-input';
export type { ServiceOperationResult, ServiceOperationRunner } from './service-operations';

/**
 * The fast paths of GraphQL, in one room (docs/performance.md, «GraphQL execution»): operations compiled by
 * graphql-jit, the hot fields called without type-graphql's wrapper, a zone's plain record lists answered from
 * its packed text and written as the answer's bytes. The rest of the service meets them here, and through
 * Apollo Server's and graphql-js's documented extension points only: a plugin (`responseForOperation`), the
 * `stringifyResult` option, and `resolve` functions set on the built schema (`installDirectFieldResolvers`,
 * called by schema.ts). `FAST_PATHS=off` turns them off whole: graphql-js and type-graphql then run as written,
 * and the answers are the same (test/e2e/graphql-fast-path-differential.test.ts).
 */
export interface FastPath {
  /** Apollo Server's plugins that run the operations compiled (none when off: Apollo runs graphql-js) */
  readonly plugins: ApolloServerPlugin<GraphQLContext>[];
  /** Apollo Server's `stringifyResult`: an answer's body, its plain record lists written as bytes */
  readonly stringifyResult: (value: unknown) => string;
  /** the REST layer's fixed documents, compiled once (graphql-js when off) */
  readonly serviceOperations: ServiceOperationRunner;
}

export function fastPath(schema: GraphQLSchema, on: boolean, onCompileFailure: (error: unknown) => void): FastPath {
  return {
    plugins: on ? [compiledExecution(schema, onCompileFailure)] : [],
    // the answer's JSON as it is, on or off: Apollo's default appends a newline, a second string that every
    // large answer then copies whole into a new one when it is written (0.7 MB for the bench's nested answer,
    // straight into the old generation: bench/FINDINGS.md, «The nested answer at c1»). An answer with plain
    // record lists is its JSON's bytes (answer-body.ts): Apollo passes the body on untouched and express's
    // res.send sends a Buffer as it is, with the Content-Type Apollo set
    stringifyResult: (value) => answerBody(value) as string,
    serviceOperations: serviceOperations(schema, on),
  };
}
