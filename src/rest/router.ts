import type { Database } from '../db/pool';
import { Request, Response, Router } from 'express';
import { DomainError, ERROR_CATALOGUE, ErrorCode, ErrorDetail, isErrorCode } from '../errors/catalogue';
import type { ServiceOperationRunner } from '../graphql/fast-path';
import { contextFor, GraphQLContext } from '../graphql/context';
import { errorBody } from '../http/error-body';
import { formBodyParser } from '../http/form-bodies';
import { ArrayWrapping, BARE_ARRAY, sendChunks, sendItems } from '../http/send-stream';
import { failureOf, startFailureAnswer } from '../request-failure';
import { conditionalGet } from '../http/conditional-get';
import { principalOf, requireApiKey, wholeBodyFirst } from '../http/request-gates';
import { heavyBodies, HeavyRequests } from '../http/heavy-requests';
import { databaseOf } from '../http/read-routing';
import { sendJson } from '../http/send-json';
import { PREFERENCE_APPLIED, prefersRespondAsync } from '../http/prefer';
import { importBodyLimit, largeBodyTurn } from '../http/body-limits';
import { logger } from '../logger';
import type { Services } from '../services';
import { buildOpenApi } from './openapi';
import { type TypedDocument } from '../graphql/typed-document';
import { EnableDnssecDocument } from './generated/dnssec';
import { CheckZoneDocument, GetDomainDocument } from './generated/domains';
import { ImportZoneDocument } from './generated/zone-changes';
import { checkNamedObject, FieldSpec, Inputs, RouteResult, RouteSpec, Runner, VariablesOf } from './route-spec';
import { ROUTES } from './routes';
import type { Principal } from '../auth/principal';
import { hostPortName } from '../config/settings';
import { Warning, WARNINGS_HEADER, warningsHeaderValue } from './warnings-header';
import { checkInput } from '../graphql/fast-path';
import { formatError } from '../graphql/format-error';
import { textInputError, variableTextProblems } from '../graphql/text-input';
import type { RequestContext } from '../services/context';

export interface RestDeps {
  runOperation: ServiceOperationRunner;
  db: Database;
  services: Services;
  /** the process's turns for heavy requests: large bodies, and the operations of HEAVY_OPERATIONS */
  heavy: HeavyRequests;
  /** the process's one turn for a body over BODY_LIMIT (a zone file's: src/http/body-limits.ts) */
  largeBodies: HeavyRequests;
}

/** the REST layer's operations whose answer holds a zone whole, or which parse a zone file: a heavy turn each */
const HEAVY_OPERATIONS: ReadonlySet<unknown> = new Set([GetDomainDocument, ImportZoneDocument, CheckZoneDocument, EnableDnssecDocument]);

/** an operation that writes: run on the primary */
const MUTATION = /^\s*mutation\b/;

/** GraphQL argument names → the REST field names a legacy client sent. */
const REST_FIELD_NAMES: Record<string, string> = { type: 'rtype', userId: 'user_id' };
/** a GraphQL field path (`input.email`) as the REST field it came from (`email`) */
const restField = (field: string) => {
  const bare = field.startsWith('input.') ? field.slice('input.'.length) : field;
  return REST_FIELD_NAMES[bare] ?? bare;
};

/**
 * The errors of a request's own fields (`readInputs`): named as the request sent them already, so that a body's
 * `type` (GraphQL's name, where REST's is `rtype`) is told as `type`, not renamed
 */
const namedAsSent = new WeakSet<DomainError>();

/** A domain error thrown by a service called directly (a stream, a route's own check), with REST's field names. */
function withRestFields(error: DomainError): DomainError {
  if (namedAsSent.has(error)) return error;
  return new DomainError(
    error.code,
    error.message,
    error.details.map((detail) => ({ ...detail, field: restField(detail.field) })),
  );
}

function fromGraphQLErrors(errors: readonly { message: string; extensions?: Record<string, unknown> }[]): DomainError {
  const [first] = errors;
  const code = first.extensions?.code;
  const details = errors
    .flatMap((error) => (error.extensions?.details as ErrorDetail[] | undefined) ?? [])
    .map((detail) => ({ ...detail, field: restField(detail.field) }));
  if (isErrorCode(code)) return new DomainError(code, first.message, details);
  // a list handed to the operation as it came (a change set) can fail GraphQL's own coercion of variables:
  // the client's mistake, and GraphQL's message names the item and the field
  if (code === 'BAD_USER_INPUT')
    return new DomainError('INVALID_INPUT', first.message, [{ field: 'body', code: 'INVALID_VALUE', message: first.message }]);
  // the REST layer sends only well-formed operations; anything else is a bug reported as such
  logger.error({ errors }, 'REST operation failed with an unexpected GraphQL error');
  return new DomainError('INTERNAL', ERROR_CATALOGUE.INTERNAL.message);
}

/** a route's fields as `readInputs` walks them, listed once when the router is made, not on every request */
interface RouteFields {
  params: [string, FieldSpec][];
  body: [string, FieldSpec][];
  query: [string, FieldSpec][];
  /** the required fields of the path and the body, in the order their problems are listed */
  required: string[];
}

function routeFields(route: RouteSpec): RouteFields {
  return {
    params: Object.entries(route.params ?? {}),
    body: Object.entries(route.body ?? {}),
    query: Object.entries(route.query ?? {}),
    required: Object.entries({ ...route.params, ...route.body })
      .filter(([, spec]) => spec.required)
      .map(([name]) => name),
  };
}

/** Reads and type-checks a route's inputs (path, query, body): numbers sent as text are parsed. */
function readInputs(route: RouteSpec, fields: RouteFields, req: Request): Inputs {
  const problems: ErrorDetail[] = [];
  const inputs: Inputs = {};
  const body: Record<string, unknown> = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {};
  if (req.body !== undefined && (typeof req.body !== 'object' || Array.isArray(req.body))) {
    problems.push({ field: 'body', code: 'BODY_NOT_OBJECT', message: 'the request body must be an object of fields' });
  }
  for (const name of Object.keys(body)) {
    if (!route.body?.[name]) {
      // GraphQL's name of a field REST names otherwise (`type` for `rtype`): said so
      const restName = REST_FIELD_NAMES[name];
      const meant = restName && route.body?.[restName] ? `: this request calls it ${restName}` : '';
      problems.push({
        field: name,
        code: 'UNKNOWN_FIELD',
        message: `${name} is not a field of this request${meant} (expected: ${Object.keys(route.body ?? {}).join(', ') || 'none'})`,
      });
    }
  }
  const take = (specs: [string, FieldSpec][], source: Record<string, unknown>) => {
    for (const [name, spec] of specs) {
      if (inputs[name] !== undefined) continue;
      const raw = source[name];
      if (raw === undefined || (raw === '' && !spec.emptyText)) continue;
      if (raw === null && spec.nullable) {
        inputs[name] = null;
        continue;
      }
      if (spec.kind === 'list') {
        if (typeof raw === 'string' && spec.commaText) {
          inputs[name] = raw
            .split(',')
            .map((item) => item.trim())
            .filter(Boolean);
          continue;
        }
        if (!Array.isArray(raw)) {
          problems.push({ field: name, code: 'NOT_A_LIST', message: `${name} must be a JSON array (send the body as application/json)` });
          continue;
        }
        inputs[name] = raw;
      } else if (spec.kind === 'object') {
        if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
          problems.push({
            field: name,
            code: 'NOT_AN_OBJECT',
            message: `${name} must be a JSON object (send the body as application/json)`,
          });
          continue;
        }
        inputs[name] = raw as unknown[];
      } else if (spec.kind === 'int') {
        const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
        // a whole number below zero is one, out of range: said as such
        if (/^-\d{1,15}$/.test(text)) {
          const range = spec.max === undefined ? 'at least 0' : `from 0 to ${spec.max}`;
          problems.push({ field: name, code: 'NUMBER_TOO_SMALL', message: `${name} must be ${range} (got ${text})` });
          continue;
        }
        if (!/^\d{1,15}$/.test(text)) {
          problems.push({ field: name, code: 'NOT_A_WHOLE_NUMBER', message: `${name} must be a whole number` });
          continue;
        }
        if (spec.max !== undefined && Number(text) > spec.max) {
          problems.push({ field: name, code: 'NUMBER_TOO_LARGE', message: `${name} must be at most ${spec.max}` });
          continue;
        }
        inputs[name] = Number(text);
      } else {
        if (typeof raw !== 'string') {
          problems.push({ field: name, code: 'NOT_TEXT', message: `${name} must be text` });
          continue;
        }
        const chosen = spec.spelling ? spec.spelling(raw) : raw;
        if (spec.choices && (chosen === undefined || !spec.choices.includes(chosen))) {
          problems.push({
            field: name,
            code: 'INVALID_CHOICE',
            message: `${name} must be one of ${spec.choices.join(', ')} (got ${JSON.stringify(raw.slice(0, 40))})`,
          });
          continue;
        }
        inputs[name] = chosen;
      }
    }
  };
  take(fields.params, req.params);
  take(fields.body, body);
  // the query string is parsed only for a route that reads it
  if (fields.query.length) take(fields.query, req.query as Record<string, unknown>);
  for (const name of fields.required) {
    if (inputs[name] === undefined && !problems.some((p) => p.field === name)) {
      // sent under its GraphQL name (`type` for `rtype`): the name as sent is told
      const sentAs = Object.keys(body).find((sent) => REST_FIELD_NAMES[sent] === name);
      problems.push({ field: name, code: 'REQUIRED', message: `${name} is required${sentAs ? ` (the body has ${sentAs})` : ''}` });
    }
  }
  if (route.path === '/domain/delete' && inputs.zone === undefined && !problems.some((p) => p.field === 'zone')) {
    problems.push({ field: 'zone', code: 'REQUIRED', message: 'zone is required (in the body or the query string)' });
  }
  if (problems.length) {
    const code: ErrorCode = problems[0].field === 'body' ? 'BAD_REQUEST' : 'INVALID_INPUT';
    const error = new DomainError(code, problems[0].message, problems);
    namedAsSent.add(error);
    throw error;
  }
  return inputs;
}

/**
 * The documented /api paths (docs/decisions.md §1), each turned into GraphQL operations on the same schema
 * compiled once (`serviceOperations`), with the caller's X-API-Key; success and error bodies as docs/decisions.md §1 says.
 */
export function createRestRouter({ runOperation, db, services, heavy, largeBodies }: RestDeps): Router {
  const router = Router({ strict: false });
  const { bodyLimit, restEnvelope, maxPageSize } = services.settings;
  const zoneFileLimit = importBodyLimit(services.settings);
  // an answer showing propagation changes with SECONDARIES (the servers shown, no_secondaries) even when no row does
  const propagationVariant = `secondaries ${services.settings.secondaries.map(hostPortName).join(',')}`;
  const parser = formBodyParser('BODY_LIMIT', bodyLimit);
  const zoneFileParser = formBodyParser('IMPORT_BODY_LIMIT', zoneFileLimit);

  const authenticated = requireApiKey(db, services, 'rest');
  const wholeBody = wholeBodyFirst(bodyLimit);
  const wholeZoneFileBody = wholeBodyFirst(zoneFileLimit, 'IMPORT_BODY_LIMIT');
  const largeBody = largeBodyTurn(largeBodies, bodyLimit);

  /** a runner for one request; the warnings of the operations it ran gather in `warnings` */
  const runnerFor = (principal: Principal, res: Response): Runner & { warnings: Warning[] } => {
    const warnings: Warning[] = [];
    // where the operations read: a standby for a GET when there are standbys (http/read-routing.ts), else the
    // primary; the audit of refusals writes, on the primary
    const readDb = databaseOf(res.req, db);
    // a context per operation, for the principal requireApiKey found; a REST answer
    // holds a zone's records whole, however many (the nested lists of a client's query stop at MAX_PAGE_SIZE);
    // its TTLs are the REST contract's (ALLOWED_TTLS), whichever service it reaches
    const context = async (operationDb: Database): Promise<GraphQLContext> =>
      Object.assign(contextFor(operationDb, services, principal), { wholeNestedLists: true, restContract: true });
    const run = async <TResult, TVariables>(
      operation: TypedDocument<TResult, TVariables>,
      variables: VariablesOf<TVariables>,
    ): Promise<TResult> => {
      if (HEAVY_OPERATIONS.has(operation) && !(await heavy.take(res))) throw new DomainError('SERVER_BUSY');
      const source = operation.toString();
      // a mutation writes: on the primary whatever the route's method
      const operationContext = await context(MUTATION.test(source) ? db : readDb);
      const { data, errors } = await runOperation<TResult>(source, variables, operationContext);
      warnings.push(...(operationContext.warnings ?? []));
      if (errors?.length) {
        for (const error of errors) services.audit.refusals.note(db, principal, error);
        throw fromGraphQLErrors(errors);
      }
      return data as TResult;
    };
    return {
      warnings,
      run,
      async call(argument, type, value, act) {
        // what the operation would check before its resolver: the text of every value (text-input.ts), then the
        // input type's own rules, each failing as the operation's error would
        const problems = variableTextProblems({ [argument]: value });
        if (problems.length) {
          const error = textInputError(problems);
          throw fromGraphQLErrors([formatError(error.toJSON(), error)]);
        }
        let input: typeof value;
        try {
          input = await checkInput(type, value);
        } catch (invalid) {
          throw fromGraphQLErrors([formatError({ message: String((invalid as Error).message) }, invalid)]);
        }
        const context: RequestContext = { db: readDb, principal, warnings: [], restContract: true };
        try {
          return await act(services, context, input);
        } catch (error) {
          // a refusal the audit log keeps (policy, rate, quota), as `run` notes the operation's
          if (error instanceof DomainError) services.audit.refusals.note(db, principal, error);
          throw error;
        } finally {
          warnings.push(...(context.warnings ?? []));
        }
      },
      async *pages(operation, field, variables) {
        let after: string | undefined;
        do {
          // a page never asks for more than MAX_PAGE_SIZE, whatever the route's page size: lists still come whole
          const given: Record<string, unknown> = variables;
          const first = typeof given.first === 'number' ? Math.min(given.first, maxPageSize) : given.first;
          const page = (await run(operation, { ...given, first, after } as typeof variables))[field];
          yield page.nodes;
          after = page.pageInfo.hasNextPage && page.pageInfo.endCursor ? page.pageInfo.endCursor : undefined;
        } while (after !== undefined);
      },
      async stream(read) {
        // a service's own context: no loaders, no GraphQL; the same principal, database and scope
        return read(services, { db: readDb, principal, warnings: [], restContract: true });
      },
    };
  };

  const envelope = (status: number, count: number, data: unknown) => ({ code: status, count, data, status: 'success', message: 'OK' });
  /** a streamed list in the RESTKnot envelope (`data`, then `count`), or bare */
  const itemsWrapping: ArrayWrapping =
    restEnvelope === 'restknot'
      ? { open: '{"code":200,"status":"success","message":"OK","data":[', close: (count) => `],"count":${count}}` }
      : BARE_ARRAY;

  for (const route of ROUTES) {
    const fields = routeFields(route);
    const handlers = [
      authenticated,
      ...(route.method === 'get' && !route.uncached
        ? [
            conditionalGet(db, {
              withPropagation: route.readsPropagation === true,
              variant: route.readsPropagation ? `rest ${restEnvelope} ${propagationVariant}` : `rest ${restEnvelope}`,
              zoneParam: route.readsZone,
            }),
          ]
        : []),
      // a zone file's body may pass BODY_LIMIT, up to IMPORT_BODY_LIMIT, one such body at a time
      ...(route.body && route.zoneFileBody ? [largeBody, heavyBodies(heavy), zoneFileParser] : []),
      ...(route.body && !route.zoneFileBody ? [heavyBodies(heavy), parser] : []),
      route.zoneFileBody ? wholeZoneFileBody : wholeBody,
      async (req: Request, res: Response) => {
        try {
          const runner = runnerFor(principalOf(req)!, res);
          const preferences = { respondAsync: prefersRespondAsync(req.headers.prefer) };
          let result: RouteResult;
          try {
            result = await route.handle(readInputs(route, fields, req), runner, preferences);
          } catch (invalid) {
            // an object the caller cannot see is not found, whatever the body holds (checked only on this
            // error path: a valid request pays nothing for it)
            const status = invalid instanceof DomainError ? ERROR_CATALOGUE[invalid.code].status : 0;
            if (route.names && (status === 400 || status === 422))
              await checkNamedObject(route.names, req.params as Record<string, string>, runner);
            throw invalid;
          }
          if (runner.warnings.length) res.set(WARNINGS_HEADER, warningsHeaderValue(runner.warnings));
          if ('text' in result) {
            res.status(route.status).type(result.contentType).send(result.text);
          } else if ('empty' in result) {
            res.status(route.status).end();
          } else if ('itemPages' in result) {
            await sendItems(res, route.status, result.itemPages, itemsWrapping);
          } else if ('chunks' in result) {
            await sendChunks(res, route.status, result.contentType, result.chunks);
          } else {
            const count = Array.isArray(result.body) ? result.body.length : 1;
            const status = result.status ?? route.status;
            // a documented path's write proposed because the request asked for it (RFC 7240 §3)
            if (status === 202 && route.proposes === 'when-preferred') res.set(PREFERENCE_APPLIED, 'respond-async');
            sendJson(res, status, restEnvelope === 'restknot' ? envelope(status, count, result.body) : result.body);
          }
        } catch (thrown) {
          // a route's own check of a form field throws a DomainError, as services do
          if (res.headersSent) {
            logger.error({ err: thrown }, 'REST list failed while streaming');
            res.destroy();
            return;
          }
          const failure = failureOf(thrown instanceof DomainError ? withRestFields(thrown) : thrown, 'REST');
          const body =
            failure.kind === 'refused'
              ? errorBody(failure.error.code, failure.error.message, failure.error.details)
              : errorBody(failure.kind === 'unavailable' ? 'DATABASE_UNAVAILABLE' : 'INTERNAL');
          startFailureAnswer(res, failure).json(body);
        }
      },
    ];
    router[route.method](route.path, ...handlers);
  }

  const openApi = buildOpenApi(ROUTES, { envelope: restEnvelope });
  router.get('/openapi.json', (_req, res) => {
    res.json(openApi);
  });

  // a documented path asked with another method
  const methodsByPath = new Map<string, string[]>();
  for (const route of ROUTES) methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method.toUpperCase()]);
  for (const [path, methods] of methodsByPath) {
    router.all(path, (_req, res) => {
      res.set('Allow', methods.join(', ')).status(405).json(errorBody('METHOD_NOT_ALLOWED'));
    });
  }
  return router;
}
