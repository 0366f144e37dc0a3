import type { Database } from '../db/pool';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { noteDatabaseFailure, RETRY_AFTER_SECONDS } from '../db/availability';
import type { Principal } from '../auth/principal';
import type { Services } from '../services';
import { errorBody } from './error-body';
import { DomainError } from '../errors/catalogue';
import { sourceAddressOf } from '../services/audit-log';
import { rateLimitError, rateLimitFields } from '../services/rate-limits';

/** the principal of each request that passed requireApiKey, for the handlers after it */
const PRINCIPALS = new WeakMap<Request, Principal>();

/** who is calling, as requireApiKey found it; undefined on a request it did not let through */
export function principalOf(req: Request): Principal | undefined {
  return PRINCIPALS.get(req);
}

/**
 * Authentication first, then the rate limits of the principal found (a refusal: 429 RATE_LIMITED with
 * Retry-After, before the request is read). A request without a valid X-API-Key gets 401 before anything about it is parsed or
 * validated (no 422 listing fields, no 400 for broken JSON to a caller who may not call at all). The principal
 * is kept for the request's handlers (principalOf), so a request is authenticated once.
 */
export function requireApiKey(db: Database, services: Services, shape: 'rest' | 'graphql'): RequestHandler {
  // each edge answers in its own error shape: the REST error body, or a GraphQL response with one error
  const refuse = (
    res: Response,
    code: 'UNAUTHENTICATED' | 'DATABASE_UNAVAILABLE' | 'FORBIDDEN_BY_POLICY' | 'RATE_LIMITED',
    error?: DomainError,
  ) => {
    const details = code === 'FORBIDDEN_BY_POLICY' ? [{ field: 'key', code, message: error?.message ?? '' }] : (error?.details ?? []);
    const body = errorBody(code, error?.message, code === 'FORBIDDEN_BY_POLICY' ? [] : details);
    res.status(body.code).json(shape === 'rest' ? body : { errors: [{ message: body.message, extensions: { code, details } }] });
  };
  const refusalDelayMs = services.settings.rateLimitRefusalDelayMs;
  /**
   * A request over a limit is answered 429 after a hold of RATE_LIMIT_REFUSAL_DELAY_MS to 1.5 times that: a
   * client that ignores Retry-After and sends again at once on each of its connections then costs the process
   * at most (connections / delay) refusals a second instead of as many as it can send, which took the event
   * loop from the other tenants; a client that waits Retry-After (at least 1 s) loses nothing. The hold varies
   * so that a client's connections, refused together, do not all come back in the same millisecond and keep
   * doing so every second (docs/performance.md, «Noisy tenants»).
   */
  const refuseHeld = (
    req: Request,
    res: Response,
    principal: Principal,
    waitMs: number,
    limitedBy: 'user' | 'key' | undefined,
    what?: string,
  ) => {
    const delay = refusalDelayMs > 0 ? Math.round(refusalDelayMs * (1 + Math.random() / 2)) : 0;
    const retryAfter = Math.max(1, Math.ceil((waitMs - delay) / 1000));
    const answer = () => {
      if (res.headersSent || req.socket.destroyed) return;
      res.set('Retry-After', String(retryAfter));
      const error = rateLimitError({ retryAfter, limitedBy }, what);
      services.audit.refusals.note(db, principal, error);
      refuse(res, 'RATE_LIMITED', error);
    };
    if (delay > 0) setTimeout(answer, delay);
    else answer();
  };
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      // the peer's address (allowedNetworks); behind a proxy, as Express's `trust proxy` reads it
      const principal = await services.apiKeys.authenticate(db, req.get('x-api-key'), sourceAddressOf(req.ip ?? req.socket.remoteAddress));
      if (principal) {
        // then the principal's rate (rate-limits.ts): every answer tells the client where it stands
        // (draft-ietf-httpapi-ratelimit-headers), a refusal also when to come back (RFC 9110 §10.2.3)
        const decision = await services.rateLimits.take(db, principal);
        if (decision) {
          const fields = rateLimitFields(decision);
          res.set('RateLimit-Policy', fields.policy).set('RateLimit', fields.state);
          if (!decision.allowed) {
            refuseHeld(req, res, principal, decision.retryAfterMs ?? decision.retryAfter * 1000, decision.limitedBy);
            return;
          }
        }
        PRINCIPALS.set(req, principal);
        // then its turn among the user's requests running in this process (RATE_LIMIT_CONCURRENCY), before the
        // body is read; the turn ends when the answer is sent or the client has gone
        const leave = services.rateLimits.enter(principal, () => {
          if (!res.writableEnded && !req.socket.destroyed) next();
        });
        if (!leave) return refuseHeld(req, res, principal, 0, 'user', 'requests at once');
        res.once('close', leave);
        return;
      }
      refuse(res, 'UNAUTHENTICATED');
    } catch (error) {
      // a valid key that may not be used now: expired, idle, or from outside its networks (policy.ts)
      if (error instanceof DomainError && error.code === 'FORBIDDEN_BY_POLICY') return refuse(res, 'FORBIDDEN_BY_POLICY', error);
      if (!noteDatabaseFailure(error, 'authentication')) return next(error);
      res.set('Retry-After', String(RETRY_AFTER_SECONDS));
      refuse(res, 'DATABASE_UNAVAILABLE');
    }
  };
}

/**
 * Reads whatever body no parser took (a DELETE with a chunked body, say) to its end before the request is
 * acted on: a body that turns out malformed or cut off ends the request without the action having run
 * (a 400 must never follow a delete that happened).
 */
export function wholeBodyFirst(limit: number): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.complete) return next();
    let size = 0;
    let done = false;
    const finish = (error?: unknown) => {
      if (done) return;
      done = true;
      req.removeListener('data', onData);
      if (error) {
        if (!res.headersSent && !req.socket.destroyed)
          res
            .status(400)
            .json(
              errorBody('BAD_REQUEST', 'Malformed request body', [
                { field: 'body', code: 'MALFORMED_BODY', message: 'the request body could not be read' },
              ]),
            );
        return;
      }
      next();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit && !done) {
        done = true;
        req.removeListener('data', onData);
        res.status(413).json(errorBody('PAYLOAD_TOO_LARGE'));
        req.resume();
      }
    };
    req.on('data', onData);
    req.once('end', () => finish());
    req.once('error', (error) => finish(error));
    req.once('aborted', () => finish(new Error('request aborted')));
  };
}
