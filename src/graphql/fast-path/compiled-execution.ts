import { HeaderMap, type ApolloServerPlugin, type GraphQLResponse } from '@apollo/server';
import {
  DirectiveNode,
  DocumentNode,
  ExecutionResult,
  FragmentDefinitionNode,
  GraphQLError,
  GraphQLFormattedError,
  GraphQLSchema,
  Kind,
  SelectionSetNode,
  visit,
} from 'graphql';
import { compileQuery, CompiledQuery, isCompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';
import { graphqlExecutions } from '../../metrics';
import type { GraphQLContext } from '../context';
import { auditRefusals, formatError } from '../format-error';
import { AnswerAsWritten, plainRecordLists } from './plain-record-lists';

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
 * Executes operations compiled by graphql-jit instead of graphql-js's interpreter, as an Apollo Server plugin:
 * its `responseForOperation` hook answers an operation Apollo has parsed, validated and resolved (every plugin's
 * checks before it have run: cost, depth, text, standby reads), and Apollo then sends that answer through the
 * same `willSendResponse` hooks and body writer. graphql-js resolves every field of an answer through generic
 * code: for a nested answer of 10,000 records (42,000 fields) that was most of the request's CPU
 * (docs/performance.md, «GraphQL execution»). graphql-jit turns each operation into a function once and runs the
 * same resolvers. A document not compiled yet is left to Apollo (the hook answers null): graphql-js runs it.
 *
 * Compiled operations are kept per parsed document: Apollo keeps one DocumentNode per distinct query text in
 * its bounded document store, so a repeated query is the same object. Documents seen once are counted in a
 * WeakMap (gone with the document); compiled ones live in an LRU of COMPILED_DOCUMENTS_KEPT. An operation
 * graphql-jit cannot compile runs on graphql-js.
 *
 * Per document only the operations it defines are kept: a client sending one document with ever
 * new `operationName`s gets graphql-jit's refusal each time, compiled again, not a growing map.
 *
 * An answer made here is finished as Apollo finishes one it executes itself (requestPipeline's execution step):
 * the errors go to `didEncounterErrors`'s one listener (the refusals' audit), each is formatted by the same
 * `formatError` after Apollo's defaults (a code, `extensions.http` taken out into the answer's head), and an
 * answer with errors and no data is a 400 (Apollo's `status400ForVariableCoercionErrors`, on by default). The
 * differential test (test/e2e/graphql-fast-path-differential.test.ts) holds the statuses, data and errors equal.
 */
export function compiledExecution(schema: GraphQLSchema, onCompileFailure: (error: unknown) => void): ApolloServerPlugin<GraphQLContext> {
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

  const answer = async (
    document: DocumentNode,
    operationName: string | undefined,
    variables: Record<string, unknown> | undefined,
    context: GraphQLContext,
  ): Promise<GraphQLResponse | null> => {
    const query = compiledFor(document, operationName);
    if (query === 'graphql-js') {
      graphqlExecutions.inc({ engine: 'graphql-js' });
      return null;
    }
    const http = { status: undefined as number | undefined, headers: new HeaderMap() };
    let result: ExecutionResult;
    if (isCompiledQuery(query)) {
      graphqlExecutions.inc({ engine: 'graphql-jit' });
      try {
        result = await query.query(undefined, context, variables ?? {});
      } catch (thrown) {
        // what Apollo answers when its own execution throws (requestPipeline's sendErrorResponse): the error
        // alone, formatted, 500 unless it says otherwise; a resolver's error is in the result, not thrown
        const error =
          thrown instanceof GraphQLError
            ? thrown
            : new GraphQLError(thrown instanceof Error ? thrown.message : String(thrown), {
                originalError: thrown instanceof Error ? thrown : undefined,
              });
        auditRefusals(context, [error]);
        const errors = [formattedForApollo(error, http)];
        if (http.status === undefined) http.status = 500;
        return { http, body: { kind: 'single', singleResult: { errors } } };
      }
    } else {
      result = query; // the operation cannot run (graphql-jit's own refusal, as errors)
    }
    // a plain record list's counts not read: the operation as written, by graphql-js (a query: read again)
    if (result.errors?.some((error) => error.originalError instanceof AnswerAsWritten)) {
      graphqlExecutions.inc({ engine: 'graphql-js' });
      return null;
    }
    if (!result.errors?.length) return { http, body: { kind: 'single', singleResult: result } };
    const errors = result.errors.map(withExtensions);
    auditRefusals(context, errors);
    const formatted = errors.map((error) => formattedForApollo(error, http));
    if (result.data === undefined && http.status === undefined) http.status = 400;
    return { http, body: { kind: 'single', singleResult: { ...result, errors: formatted } } };
  };

  return {
    async requestDidStart() {
      return {
        responseForOperation: ({ document, operationName, request, contextValue }) =>
          answer(document, operationName ?? undefined, request.variables, contextValue),
      };
    },
  };
}

/**
 * An error as Apollo formats one of an operation it executed: `extensions.code` INTERNAL_SERVER_ERROR when it has
 * none, `extensions.http` (a status, headers) moved into the answer's head, then the service's formatError
 */
function formattedForApollo(error: GraphQLError, http: { status?: number; headers: HeaderMap }): GraphQLFormattedError {
  const extensions: Record<string, unknown> = { ...error.extensions, code: error.extensions.code ?? 'INTERNAL_SERVER_ERROR' };
  const head = extensions.http as { status?: number; headers?: Map<string, string> } | undefined;
  if (head && typeof head === 'object') {
    if (head.status) http.status = head.status;
    for (const [name, value] of head.headers ?? []) http.headers.set(name, value);
    delete extensions.http;
  }
  return formatError({ ...error.toJSON(), extensions }, error);
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
export function withExtensions(error: GraphQLError): GraphQLError {
  if (error.extensions) return error;
  const rebuilt = new GraphQLError(error.message, { path: error.path, originalError: error.originalError });
  // graphql-js computes locations from AST nodes, which graphql-jit does not keep; they are copied instead
  (rebuilt as { locations?: GraphQLError['locations'] }).locations = error.locations;
  return rebuilt;
}
