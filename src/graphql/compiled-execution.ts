import type { GatewayExecutor, GatewayInterface } from '@apollo/server-gateway-interface';
import {
  DirectiveNode,
  DocumentNode,
  execute,
  ExecutionResult,
  FragmentDefinitionNode,
  GraphQLError,
  GraphQLFormattedError,
  GraphQLSchema,
  Kind,
  parse,
  printSchema,
  SelectionSetNode,
  validate,
  visit,
} from 'graphql';
import { compileQuery, CompiledQuery, isCompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';
import { graphqlExecutions } from '../metrics';
import type { GraphQLContext } from './context';
import { formatError } from './format-error';
import { installGatewayRequestContext } from './gateway-request-context';
import { plainRecordLists } from './plain-record-lists';
import { textInputError, variableTextProblems } from './text-input';

type Compiled = CompiledQuery | ExecutionResult | 'graphql-js';

/**
 * How many documents keep their compiled operations. A compiled operation is a generated function (tens of
 * kilobytes of code and closures for a large selection), so the cache is bounded by count: a stream of
 * distinct documents (a hostile client, or one that inlines its literals) recycles the same slots instead of
 * growing the process (bench/RESULTS-hostile.md: RSS grew by ~60 MB per 1,000 distinct documents).
 */
export const COMPILED_DOCUMENTS_KEPT = 500;

/**
 * A document is compiled the second time it runs. Compiling costs more than interpreting an operation
 * once, so a one-off document (hostile, or ad hoc from GraphiQL) runs on graphql-js and leaves nothing
 * behind; a document that comes back (the REST layer's, a client's) runs compiled from then on.
 */
const RUNS_BEFORE_COMPILING = 1;

/**
 * Executes operations compiled by graphql-jit instead of graphql-js's interpreter, plugged into Apollo Server
 * through its executor hook (the gateway interface; Apollo still parses, validates, runs the plugins and
 * formats errors). graphql-js resolves every field of an answer through generic code: for a nested answer of
 * 10,000 records (42,000 fields) that was most of the request's CPU (docs/performance.md, «GraphQL execution»).
 * graphql-jit turns each operation into a function once and runs the same resolvers.
 *
 * Compiled operations are kept per parsed document: Apollo keeps one DocumentNode per distinct query text in
 * its bounded document store, so a repeated query is the same object. Documents seen once are counted in a
 * WeakMap (gone with the document); compiled ones live in an LRU of COMPILED_DOCUMENTS_KEPT. An operation
 * graphql-jit cannot compile runs on graphql-js.
 *
 * Per document only the operations it defines are kept: a client sending one document with ever
 * new `operationName`s gets graphql-jit's refusal each time, compiled again, not a growing map.
 */
export function compiledExecution(schema: GraphQLSchema, onCompileFailure: (error: unknown) => void): GatewayInterface {
  // the request context Apollo hands the executor, without an accessor that keeps each answer alive
  installGatewayRequestContext();
  const runs = new WeakMap<DocumentNode, number>();
  const compiled = new LRUCache<DocumentNode, Map<string, Compiled>>({ max: COMPILED_DOCUMENTS_KEPT });

  const compile = (document: DocumentNode, operationName: string | undefined): Compiled => {
    if (mergesConditionalFields(document)) return 'graphql-js';
    try {
      return compiledWithPlainLists(schema, document, operationName) ?? compileQuery(schema, document, operationName);
    } catch (error) {
      onCompileFailure(error);
      return 'graphql-js';
    }
  };

  /** the compiled operation for this run, or 'graphql-js' while the document is new */
  const compiledFor = (document: DocumentNode, operationName: string | undefined): Compiled => {
    let byOperation = compiled.get(document);
    if (!byOperation) {
      const seen = runs.get(document) ?? 0;
      if (seen < RUNS_BEFORE_COMPILING) {
        runs.set(document, seen + 1);
        return 'graphql-js';
      }
      runs.delete(document);
      compiled.set(document, (byOperation = new Map()));
    }
    const key = operationName ?? '';
    let query = byOperation.get(key);
    if (query === undefined) {
      query = compile(document, operationName);
      if (definesOperation(document, operationName)) byOperation.set(key, query);
    }
    return query;
  };

  const executor: GatewayExecutor = async ({ document, operationName, request, context }) => {
    const query = compiledFor(document, operationName ?? undefined);
    if (query === 'graphql-js') {
      graphqlExecutions.inc({ engine: 'graphql-js' });
      return execute({ schema, document, operationName, contextValue: context, variableValues: request.variables });
    }
    if (!isCompiledQuery(query)) return query; // the operation cannot run (graphql-jit's own refusal, as errors)
    graphqlExecutions.inc({ engine: 'graphql-jit' });
    const result = await query.query(undefined, context, request.variables ?? {});
    return result.errors ? { ...result, errors: result.errors.map(withExtensions) } : result;
  };

  return {
    async load() {
      return { executor };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => undefined;
    },
    async stop() {},
  };
}

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
 * Runs the service's own fixed documents (the REST layer's, `src/rest/operations.ts`) on the schema: each is
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

/**
 * The operation compiled with its plain record lists answered as one value each (plain-record-lists.ts), or
 * undefined when it has none or graphql-jit refuses the rewritten document (it then runs as written).
 */
function compiledWithPlainLists(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
): CompiledQuery | undefined {
  const rewritten = plainRecordLists(schema, document, operationName);
  if (!rewritten) return undefined;
  try {
    const query = compileQuery(rewritten.schema, rewritten.document, operationName);
    return isCompiledQuery(query) ? query : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a selection of the document merges a field under `@skip`/`@include` with another node of the same
 * response key (`pageInfo { endCursor } pageInfo @include(if: false) { hasNextPage }`): graphql-jit merges their
 * selections before it looks at the directive, and answered the excluded node's fields too, where graphql-js
 * (and the GraphQL specification's CollectFields) leave them out. Such a document runs on graphql-js.
 */
function mergesConditionalFields(document: DocumentNode): boolean {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const conditional = (node: { directives?: readonly DirectiveNode[] }) =>
    node.directives?.some((d) => d.name.value === 'skip' || d.name.value === 'include') ?? false;
  /** the fields of one selection set with fragments expanded, each with whether a directive decides it */
  const collect = (set: SelectionSetNode, under: boolean, seen: Set<string>, out: Map<string, boolean[]>): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const key = (selection.alias ?? selection.name).value;
        if (!out.has(key)) out.set(key, []);
        out.get(key)!.push(under || conditional(selection));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        collect(selection.selectionSet, under || conditional(selection), seen, out);
      } else {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || seen.has(fragment.name.value)) continue;
        collect(fragment.selectionSet, under || conditional(selection), new Set([...seen, fragment.name.value]), out);
      }
    }
  };
  let merges = false;
  const check = (set: SelectionSetNode) => {
    const fields = new Map<string, boolean[]>();
    collect(set, false, new Set(), fields);
    for (const decided of fields.values()) if (decided.length > 1 && decided.some(Boolean)) merges = true;
  };
  visit(document, {
    OperationDefinition: (node) => check(node.selectionSet),
    Field: (node) => {
      if (node.selectionSet) check(node.selectionSet);
    },
  });
  return merges;
}

/** whether `operationName` picks an operation the document defines (no name: its only operation) */
function definesOperation(document: DocumentNode, operationName: string | null | undefined): boolean {
  if (!operationName) return true;
  return document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === operationName);
}

/**
 * graphql-jit's errors have no `extensions` at all when the resolver's error had none, and Apollo's error
 * formatting reads `extensions.code`; such an error is rebuilt as graphql-js's own, with the same message,
 * path, locations and original error (whose code the service's formatError reads).
 */
function withExtensions(error: GraphQLError): GraphQLError {
  if (error.extensions) return error;
  const rebuilt = new GraphQLError(error.message, { path: error.path, originalError: error.originalError });
  // graphql-js computes locations from AST nodes, which graphql-jit does not keep; they are copied instead
  (rebuilt as { locations?: GraphQLError['locations'] }).locations = error.locations;
  return rebuilt;
}
