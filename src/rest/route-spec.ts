import type { Services } from '../services';
import type { RequestContext } from '../services/context';
import { type TypedDocument } from '../graphql/typed-document';
import { GetUserForDomainsDocument, ZoneExistsDocument } from './generated/domains';
import { RecordExistsDocument } from './generated/records';

/**
 * The REST compatibility layer as a table (docs/decisions.md §1): each documented
 * path names its inputs and the GraphQL operation it runs, or for a bulk answer (every record, a zone file)
 * the service read behind the same GraphQL field. The router reads and type-checks the inputs, the OpenAPI
 * document is generated from this table, and every rule stays in the services, which both edges call.
 */
export type FieldKind = 'string' | 'int' | 'list' | 'object';
/**
 * `max`: the largest whole number the field takes (the TTL is a GraphQL Int: signed 32-bit). A `list` comes
 * only in a JSON body, is handed to the GraphQL operation as it is (its variables' types check each item), and
 * is documented by `items` (a JSON Schema).
 */
export interface FieldSpec {
  kind: FieldKind;
  required?: boolean;
  description: string;
  max?: number;
  items?: object;
  /** the field may be sent as JSON null (a limit returned to its default) */
  nullable?: boolean;
  /** a text field whose empty text is a value (a comment removed), not the field left out as for every other */
  emptyText?: true;
  /** a `list` may also come as one text of comma-separated items (a form's field) */
  commaText?: true;
  /**
   * a text field taking one of these values only, exactly as written (a GraphQL enum's values, a flag's
   * `true`/`false`): anything else is a 422 INVALID_CHOICE naming the field, never a silent default
   */
  choices?: readonly string[];
  /**
   * other spellings a field of `choices` takes, as every edge takes them (an algorithm's number, its name in
   * lower case: parseDnssecAlgorithm): the choice a value names, undefined when it names none
   */
  spelling?: (written: string) => string | undefined;
}
export type Inputs = Record<string, string | number | unknown[] | null | undefined>;

/** an operation's variables as a route hands them: only the names the operation declares, any value */
export type VariablesOf<TVariables> = { [name in keyof TVariables]?: unknown };
/** one page of a paged GraphQL list (a connection) */
export interface Page<TNode> {
  nodes: readonly TNode[];
  pageInfo: { hasNextPage: boolean; endCursor?: string | null };
}

export interface Runner {
  /**
   * runs one of the REST layer's GraphQL operations (src/rest/operations.graphql) as the caller, answering its
   * data as the generated type says; a GraphQL error becomes the REST error. The variables are named as the
   * operation names them, their values checked by the operation's own coercion
   */
  run<TResult, TVariables>(operation: TypedDocument<TResult, TVariables>, variables: VariablesOf<TVariables>): Promise<TResult>;
  /**
   * A write whose operation would only hand one input object to one service method and answer what it returns:
   * the service called as the caller, without the GraphQL execution around it (graphql-jit, type-graphql's
   * conversion and checks of the argument, the error formatting: ~10 % of a REST record create's CPU,
   * bench/FINDINGS.md). What the operation checks first is checked the same way and fails with its error: the
   * text of every value (src/graphql/text-input.ts) and the input type's class-validator rules (`checkInput`),
   * `value` named as the operation's `argument`; refusals are audited and warnings kept as `run` does.
   */
  call<I extends object, T>(
    argument: string,
    type: new () => I,
    value: I,
    act: (services: Services, context: RequestContext, input: I) => Promise<T>,
  ): Promise<T>;
  /**
   * every node of a paged GraphQL list, page by page (memory stays bounded however long the list). Pages, not
   * nodes, are what is awaited: an await per node of a 100,000-record list cost ~0.2 s (docs/performance.md,
   * «Reading zones»)
   */
  pages<K extends string, TNode, TVariables>(
    operation: TypedDocument<Record<K, Page<TNode>>, TVariables>,
    field: K,
    variables: VariablesOf<TVariables>,
  ): AsyncIterable<readonly TNode[]>;
  /**
   * What a service reads as a stream, called as the caller: the bulk answers (every record of a list, a zone
   * file of a million records) that no GraphQL execution shapes, where resolving and completing each field of
   * 100,000 rows through graphql-js would cost seconds (docs/performance.md, «Reading zones»). The service
   * decides what the caller may read, exactly as for the GraphQL field that reads the same; the stream is read
   * as it is written, so memory stays that of a page. An error before the first item is the REST error.
   */
  stream<T>(read: (services: Services, context: RequestContext) => AsyncIterable<T> | Promise<AsyncIterable<T>>): Promise<AsyncIterable<T>>;
}

export type RouteResult =
  /** `status`: another than the route's (a change set to a zone under review: 202, its change request) */
  | { body: unknown; status?: 202 }
  /** a JSON array written as its pages of items come (a list of 100,000 records) */
  | { itemPages: AsyncIterable<readonly unknown[]> }
  | { empty: true }
  | { text: string; contentType: string }
  /** a text answer written as it is produced (a zone file of a million records) */
  | { chunks: AsyncIterable<string>; contentType: string };

export interface RouteSpec {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  /** the OpenAPI operationId: what generated clients name the call */
  operationId: string;
  /** a success body that is not JSON (the zone file: text/dns) */
  responseType?: 'text/dns';
  summary: string;
  tag: 'records' | 'users' | 'domains' | 'tsigkeys' | 'dnssec' | 'steering' | 'views' | 'audit' | 'events';
  params?: Record<string, FieldSpec>;
  query?: Record<string, FieldSpec>;
  body?: Record<string, FieldSpec>;
  status: 200 | 201 | 204;
  /** the answer shows propagation state (which changes without a new zone serial): its ETag follows it too */
  readsPropagation?: true;
  /**
   * the path names an object (its parameter): one the caller cannot see is 404 before anything about the
   * request's body is said, so a 422 never tells that another user's zone exists
   */
  names?: 'zone' | 'record' | 'user';
  /** a GET whose answer does not follow the zones' data version (the event feed, deliveries): no ETag */
  uncached?: true;
  /** a GET that shows only the zone this path parameter names: its ETag follows that zone alone */
  readsZone?: string;
  /** the body is a zone file: bounded by IMPORT_BODY_LIMIT instead of BODY_LIMIT (src/http/body-limits.ts) */
  zoneFileBody?: true;
  /** OpenAPI schema of the success body */
  response?: object;
  /**
   * a write that, on a zone that requires approvals, is proposed as a change request instead: 202 with the
   * request (ChangeRequestAccepted; docs/changes.md, «Review»). `always`: a path of this service's own, whose
   * document names the 202. `when-preferred`: a documented path (a contract with legacy clients, whose
   * generated code reads the one success body it always had): proposed only when the request asks for it,
   * `Prefer: respond-async` (RFC 7240 §4.1); else refused 409 ZONE_UNDER_REVIEW, naming how to propose, and the
   * document keeps the path's success answer as it was
   */
  proposes?: 'always' | 'when-preferred';
  handle(inputs: Inputs, runner: Runner, preferences: Preferences): Promise<RouteResult>;
}

/** what the request asked of the answer (its Prefer header, RFC 7240) */
export interface Preferences {
  /** `respond-async`: a write to a zone under review proposed as a change request, answered 202 */
  respondAsync: boolean;
}

/** an OpenAPI schema naming one of the document's components */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const arrayOf = (name: string) => ({ type: 'array', items: ref(name) });

export const ID_PARAM: Record<string, FieldSpec> = { id: { kind: 'int', required: true, description: 'identifier' } };

/** the page a REST list reads from a paged GraphQL list */
export const PAGE = 2000;

export async function* mapPages<T, U>(pages: AsyncIterable<readonly T[]>, map: (item: T) => U): AsyncIterable<readonly U[]> {
  for await (const page of pages) yield page.map(map);
}

/** A path segment naming a zone: its id when all digits, its name otherwise. */
export function zoneSelector(segment: string): { id?: string; name?: string } {
  return /^\d+$/.test(segment) ? { id: segment } : { name: segment };
}

/** the object a route's path names, looked up as the caller sees it (ZONE_NOT_FOUND, … when it cannot) */
export async function checkNamedObject(
  kind: NonNullable<RouteSpec['names']>,
  params: Record<string, string>,
  runner: Runner,
): Promise<void> {
  if (kind === 'zone') await runner.run(ZoneExistsDocument, zoneSelector(String(params.zone)));
  else if (kind === 'record') await runner.run(RecordExistsDocument, { id: String(params.id) });
  else await runner.run(GetUserForDomainsDocument, { id: String(params.id) });
}
