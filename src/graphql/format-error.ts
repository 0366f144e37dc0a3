import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloServerErrorCode, unwrapResolverError } from '@apollo/server/errors';
import type { GraphQLContext } from './context';
import type { ValidationError } from 'class-validator';
import { GraphQLError, GraphQLFormattedError } from 'graphql';
import { ArgumentValidationError } from 'type-graphql';
import { codeForField, DomainError, ERROR_CATALOGUE, ErrorDetail, isErrorCode } from '../errors/catalogue';
import { RETRY_AFTER_SECONDS } from '../db/availability';
import { failureOf } from '../request-failure';

/** Client mistakes that graphql-js and Apollo detect themselves; shown as they are. */
const CLIENT_CODES = new Set<string>([
  ApolloServerErrorCode.GRAPHQL_PARSE_FAILED,
  ApolloServerErrorCode.GRAPHQL_VALIDATION_FAILED,
  ApolloServerErrorCode.BAD_USER_INPUT,
  ApolloServerErrorCode.OPERATION_RESOLUTION_FAILURE,
  ApolloServerErrorCode.BAD_REQUEST,
  ApolloServerErrorCode.PERSISTED_QUERY_NOT_FOUND,
  ApolloServerErrorCode.PERSISTED_QUERY_NOT_SUPPORTED,
]);

function validationDetails(errors: ValidationError[], prefix = ''): ErrorDetail[] {
  return errors.flatMap((error) => {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([constraint, message]) => ({
      field: error.property,
      code: constraint.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase(),
      message,
    }));
    return [...own, ...validationDetails(error.children ?? [], field)];
  });
}

/**
 * Every GraphQL error leaves with `extensions.code` from the catalogue and `details` listing every problem;
 * anything unexpected is logged whole and shown as a generic INTERNAL error, so no internals leak.
 */
export function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  const base = { message: formatted.message, locations: formatted.locations, path: formatted.path };
  if (original instanceof ArgumentValidationError) {
    const details = validationDetails(original.extensions.validationErrors);
    const code = codeForField(details[0]?.field ?? '');
    return { ...base, message: details[0]?.message ?? ERROR_CATALOGUE[code].message, extensions: { code, details } };
  }
  if (!(original instanceof DomainError)) {
    const code = formatted.extensions?.code;
    if (typeof code === 'string' && (CLIENT_CODES.has(code) || isErrorCode(code))) {
      const details = (formatted.extensions?.details as ErrorDetail[] | undefined) ?? [];
      // an operation refused for its depth or cost says every limit, as Query.operationLimits answers them
      const limits = formatted.extensions?.limits;
      return { ...base, extensions: limits === undefined ? { code, details } : { code, details, limits } };
    }
    const raisedByGraphQL = original instanceof GraphQLError && (!original.originalError || original.originalError instanceof GraphQLError);
    if (!formatted.path && raisedByGraphQL) {
      // a request-level error graphql-js raised itself (syntax, validation, variable values): the client's
      return { ...base, extensions: { code: ApolloServerErrorCode.BAD_USER_INPUT, details: [] } };
    }
  }
  // the failure as every edge tells it (request-failure.ts); the HTTP status of an outage or a rate limit is set
  // by the plugins below, since an operation's errors leave beside its data
  const failure = failureOf(original, 'GraphQL');
  if (failure.kind === 'refused')
    return { ...base, message: failure.error.message, extensions: { code: failure.error.code, details: failure.error.details } };
  const code = failure.kind === 'unavailable' ? 'DATABASE_UNAVAILABLE' : 'INTERNAL';
  return { ...base, message: ERROR_CATALOGUE[code].message, extensions: { code, details: [] } };
}

/**
 * An operation that failed because the database is away answers HTTP 503 with Retry-After, so a client can
 * tell "try again" from a bug (resolver errors would otherwise leave with 200).
 */
export const databaseOutageStatus: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response }) {
        if (response.body.kind !== 'single') return;
        const errors = response.body.singleResult.errors ?? [];
        if (!errors.some((error) => error.extensions?.code === 'DATABASE_UNAVAILABLE')) return;
        response.http.status = 503;
        response.http.headers.set('retry-after', String(RETRY_AFTER_SECONDS));
      },
    };
  },
};

/**
 * An operation refused by a zone's change rate (rate-limits.ts) tells when to come back (Retry-After), and
 * answers 429 when nothing of it was done (no data); the request's own rate is checked before the operation
 * runs (request-gates.ts).
 */
export const rateLimitedStatus: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response }) {
        if (response.body.kind !== 'single') return;
        const { errors, data } = response.body.singleResult;
        const limited = errors?.find((error) => error.extensions?.code === 'RATE_LIMITED');
        if (!limited) return;
        const retryAfter = (limited.extensions?.details as ErrorDetail[] | undefined)?.find((d) => d.retryAfter !== undefined)?.retryAfter;
        if (retryAfter !== undefined) response.http.headers.set('retry-after', String(retryAfter));
        if (data === null || data === undefined) response.http.status = 429;
      },
    };
  },
};

/**
 * Warnings a service collected while running the operation (accepted, but worth a look: NAME_NOT_HOSTNAME)
 * leave as `extensions.warnings`, each with its field, code and message, beside the data.
 */
export const operationWarnings: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response, contextValue }) {
        if (response.body.kind !== 'single' || !contextValue.warnings?.length) return;
        const result = response.body.singleResult;
        result.extensions = { ...result.extensions, warnings: contextValue.warnings };
      },
    };
  },
};

/**
 * Policy, rate-limit and quota refusals of an operation go to the audit log's summary (services/audit-log.ts
 * `Refusals`): the admin sees who keeps hitting which rule, once per key and minute with a count.
 */
export const refusalAudit: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async didEncounterErrors({ errors, contextValue }) {
        auditRefusals(contextValue, errors);
      },
    };
  },
};

/** an operation's errors to the audit log's summary of refusals (refusalAudit; the compiled operations' too) */
export function auditRefusals(context: GraphQLContext, errors: readonly GraphQLError[]): void {
  for (const error of errors) context.services.audit.refusals.note(context.primary ?? context.db, context.principal, error);
}
