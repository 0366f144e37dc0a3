import type { Response } from 'express';
import { noteDatabaseFailure, RETRY_AFTER_SECONDS } from './db/availability';
import { DomainError, ERROR_CATALOGUE } from './errors/catalogue';
import { logger } from './logger';

/**
 * What a request that failed answers, decided once for every edge (REST, the PowerDNS API, GraphQL); each edge
 * writes it in its own shape:
 *
 * - `refused`: a service or the edge's own check said no (a DomainError): its catalogued status, and for a
 *   rate limit when to come back;
 * - `unavailable`: the database is away (logged once by db/availability.ts): 503 with Retry-After, so that a
 *   client tells "try again" from a bug;
 * - `internal`: anything else is a bug: logged whole here, answered as INTERNAL without its details, so that
 *   nothing of the internals leaks.
 */
export type Failure =
  | { kind: 'refused'; error: DomainError; status: number; retryAfter?: number }
  | { kind: 'unavailable'; status: 503; retryAfter: number }
  | { kind: 'internal'; status: 500 };

/** `thrown` as a failure of a request of `edge` (named in the logs) */
export function failureOf(thrown: unknown, edge: string): Failure {
  if (thrown instanceof DomainError) {
    const retryAfter =
      thrown.code === 'DATABASE_UNAVAILABLE'
        ? RETRY_AFTER_SECONDS
        : thrown.details.find((detail) => detail.retryAfter !== undefined)?.retryAfter;
    return { kind: 'refused', error: thrown, status: ERROR_CATALOGUE[thrown.code].status, retryAfter };
  }
  if (noteDatabaseFailure(thrown, edge)) return { kind: 'unavailable', status: 503, retryAfter: RETRY_AFTER_SECONDS };
  logger.error({ err: thrown }, `unexpected error in a ${edge} request`);
  return { kind: 'internal', status: 500 };
}

/** the failure's status, and Retry-After when it says when to come back */
export function startFailureAnswer(res: Response, failure: Failure, status = failure.status): Response {
  const retryAfter = failure.kind === 'internal' ? undefined : failure.retryAfter;
  if (retryAfter !== undefined) res.set('Retry-After', String(retryAfter));
  return res.status(status);
}
