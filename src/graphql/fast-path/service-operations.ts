import { execute, GraphQLError, GraphQLFormattedError, GraphQLSchema, parse, validate } from 'graphql';
import { compileQuery, CompiledQuery, isCompiledQuery } from 'graphql-jit';
import { graphqlExecutions } from '../../metrics';
import type { GraphQLContext } from '../context';
import { formatError } from '../format-error';
import { textInputError, variableTextProblems } from '../text-input';
import { withExtensions } from './compiled-execution';

/** what one of the service's own operations answered: its data, or its errors as a client would see them */
export interface ServiceOperationResult<T> {
  data?: T;
  errors?: readonly GraphQLFormattedError[];
}

export type ServiceOperationRunner = <T>(
  source: string,
  variables: Record<string, unknown>,
  context: GraphQLContext,
) => Promise<ServiceOperationResult<T>>;

/**
 * Runs the service's own fixed documents (the REST layer's, `src/rest/operations/`) on the schema: each is
 * parsed, validated and compiled by graphql-jit once, at its first run, and from then on a call is the compiled
 * operation on the same resolvers, with the text check every operation gets (`text-input.ts`) and errors
 * formatted by the same `formatError` as /graphql's. It is what Apollo's `executeOperation` did for these
 * documents without its per-call pipeline (the query's hash and document-store look-up, the plugins' hooks,
 * the response's HTTP parts), which cost ~0.4 ms of CPU per REST write (docs/performance.md, «GraphQL execution»). The
 * cost analysis of client operations does not apply: these shapes are fixed and their pages bounded.
 */
export function serviceOperations(schema: GraphQLSchema, compiled = true): ServiceOperationRunner {
  const prepared = new Map<string, Pick<CompiledQuery, 'query'>>();
  const prepare = (source: string): Pick<CompiledQuery, 'query'> => {
    const document = parse(source);
    // the documents are the service's own: one that does not validate or compile is a bug, found by any test
    const invalid = validate(schema, document);
    if (invalid.length) throw new Error(`invalid service operation: ${invalid[0].message}`);
    // FAST_PATHS=off: graphql-js runs the document as it is
    const query: Pick<CompiledQuery, 'query'> = compiled
      ? (compileQuery(schema, document) as CompiledQuery)
      : {
          query: (root, context, variables) =>
            execute({ schema, document, rootValue: root, contextValue: context, variableValues: variables }) as ReturnType<
              CompiledQuery['query']
            >,
        };
    if (compiled && !isCompiledQuery(query as CompiledQuery))
      throw new Error(`service operation not compiled: ${(query as unknown as { errors?: { message: string }[] }).errors?.[0]?.message}`);
    prepared.set(source, query);
    return query;
  };
  const formatted = (error: GraphQLError) => formatError(error.toJSON(), error);
  return async <T>(source: string, variables: Record<string, unknown>, context: GraphQLContext) => {
    const query = prepared.get(source) ?? prepare(source);
    const problems = variableTextProblems(variables);
    if (problems.length) return { errors: [formatted(textInputError(problems))] };
    graphqlExecutions.inc({ engine: compiled ? 'graphql-jit' : 'graphql-js' });
    const result = await query.query(undefined, context, variables);
    return { data: (result.data ?? undefined) as T | undefined, errors: result.errors?.map((error) => formatted(withExtensions(error))) };
  };
}
