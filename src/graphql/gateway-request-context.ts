import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Apollo Server hands a gateway's executor (compiled-execution.ts) a request context it builds for each
 * operation (`makeGatewayGraphQLRequestContext`), whose `response.http.status` is an accessor written in an
 * object literal, closing over Apollo's whole request context: the operation's context, its loaders and rows,
 * and the answer. Such an accessor kept everything it reaches alive through young-generation collections until
 * the next full one (measured: bench/FINDINGS.md, «What kept every request's objects alive through
 * young-generation collections»).
 *
 * This builds the same context with the accessor on a class's prototype. The executor reads `document`,
 * `operationName`, `request` and `context`; the rest is kept as Apollo gives it. Apollo exports no way to
 * choose the builder, so its module is replaced in place, once; `installed` says whether it was (a version of
 * Apollo that moved it runs as before, with its own builder, and the test of this file fails).
 */

interface ApolloRequestContext {
  request: { query?: unknown; operationName?: unknown; variables?: unknown; extensions?: unknown; http?: ApolloHttpRequest };
  response: { http: { status?: number; headers: Map<string, string> } };
  schema: unknown;
  contextValue: unknown;
  queryHash: unknown;
  document: unknown;
  source: unknown;
  operationName: unknown;
  operation: unknown;
  errors: unknown;
  metrics: unknown;
  overallCachePolicy: unknown;
  requestIsBatched: unknown;
}

interface ApolloHttpRequest {
  method: string;
  search: string;
  headers: Map<string, string>;
}

interface ApolloServerParts {
  logger: unknown;
  cache: unknown;
}

/** the Fetch API's Headers over Apollo's header map, as Apollo's own builder gives them */
class HeadersOfMap {
  constructor(private readonly map: Map<string, string>) {}
  append(name: string, value: string): void {
    const had = this.map.get(name);
    this.map.set(name, had === undefined ? value : `${had}, ${value}`);
  }
  delete(name: string): void {
    this.map.delete(name);
  }
  get(name: string): string | null {
    return this.map.get(name) ?? null;
  }
  has(name: string): boolean {
    return this.map.has(name);
  }
  set(name: string, value: string): void {
    this.map.set(name, value);
  }
  entries() {
    return this.map.entries();
  }
  keys() {
    return this.map.keys();
  }
  values() {
    return this.map.values();
  }
  [Symbol.iterator]() {
    return this.map.entries();
  }
}

/** the answer's HTTP head as the executor sees it: its status is Apollo's own */
class ResponseHead {
  readonly headers: HeadersOfMap;
  constructor(private readonly requestContext: ApolloRequestContext) {
    this.headers = new HeadersOfMap(requestContext.response.http.headers);
  }
  get status(): number | undefined {
    return this.requestContext.response.http.status;
  }
  set status(status: number | undefined) {
    this.requestContext.response.http.status = status;
  }
}

function gatewayRequestContext(
  requestContext: ApolloRequestContext,
  server: ApolloServerParts,
  internals: { includeStacktraceInErrorResponses?: boolean },
) {
  const given = requestContext.request;
  const request: Record<string, unknown> = {};
  if ('query' in given) request.query = given.query;
  if ('operationName' in given) request.operationName = given.operationName;
  if ('variables' in given) request.variables = given.variables;
  if ('extensions' in given) request.extensions = given.extensions;
  if (given.http) {
    const search = given.http.search;
    request.http = {
      method: given.http.method,
      url: `https://unknown-url.invalid/${search !== '' && !search.startsWith('?') ? '?' : ''}${search}`,
      headers: new HeadersOfMap(given.http.headers),
    };
  }
  return {
    request,
    response: { http: new ResponseHead(requestContext) },
    logger: server.logger,
    schema: requestContext.schema,
    schemaHash: 'schemaHash no longer exists since Apollo Server 4',
    context: requestContext.contextValue,
    cache: server.cache,
    queryHash: requestContext.queryHash,
    document: requestContext.document,
    source: requestContext.source,
    operationName: requestContext.operationName,
    operation: requestContext.operation,
    errors: requestContext.errors,
    metrics: requestContext.metrics,
    debug: internals.includeStacktraceInErrorResponses,
    overallCachePolicy: requestContext.overallCachePolicy,
    requestIsBatched: requestContext.requestIsBatched,
  };
}

let installed: boolean | undefined;

/** the module of Apollo's builder: the package's exports name no internal module, so it is found beside its main file */
export function apolloBuilderModule(): string {
  const require = createRequire(__filename);
  return path.join(path.dirname(require.resolve('@apollo/server')), 'utils', 'makeGatewayGraphQLRequestContext.js');
}

/** replaces Apollo's builder of a gateway's request context with gatewayRequestContext; true when it did */
export function installGatewayRequestContext(): boolean {
  if (installed !== undefined) return installed;
  try {
    const builder = createRequire(__filename)(apolloBuilderModule()) as { makeGatewayGraphQLRequestContext?: unknown };
    installed = typeof builder.makeGatewayGraphQLRequestContext === 'function';
    if (installed) builder.makeGatewayGraphQLRequestContext = gatewayRequestContext;
  } catch {
    installed = false;
  }
  return installed;
}
