import type { Database } from '../db/pool';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { noteDatabaseFailure, RETRY_AFTER_SECONDS } from '../db/availability';
import type { Principal } from '../auth/principal';
import type { Services } from '../services';
import { errorBody } from './error-body';
import { BodyLimitSetting, BodyTooLarge } from './body-limits';
import { DomainError } from '../errors/catalogue';
import { sourceAddressOf } from '../services/audit-log';
import { rateLimitError, rateLimitFields } from '../services/rate-limits';
import { inNetworks } from '../dns/ip';
import { SESSION_COOKIE } from '../services/people/sessions.service';
import { whenClosed } from './response-closed';

/** the session cookie's token (RFC 6265 §5.4: `name=value` pairs separated by `; `), or undefined */
export function sessionCookieOf(req: Request): string | undefined {
  const header = req.get('cookie');
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === SESSION_COOKIE) return pair.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

/**
 * Is a request carried by the session cookie one that a page of another site cannot make? A browser sends the
 * cookie with a cross-site form post or a cross-site fetch too (SameSite=Lax still sends it on a top-level
 * GET); what such a page cannot do is set a custom header without a CORS preflight, which this service never
 * grants. So every cookie request, reads included (a GraphQL GET), must carry `X-Requested-With`, and when
 * the browser names its origin (Origin, or Sec-Fetch-Site), it must be this service's own (PUBLIC_ORIGIN, or
 * the request's scheme and host).
 */
export function sameSiteRequest(req: Request, publicOrigin: string | undefined): boolean {
  if (!req.get('x-requested-with')) return false;
  const fetchSite = req.get('sec-fetch-site');
  if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') return false;
  const origin = req.get('origin');
  if (origin === undefined) return true;
  return origin === (publicOrigin ?? `${req.protocol}://${req.get('host')}`);
}

/** the principal of each request that passed requireApiKey, for the handlers after it */
const PRINCIPALS = new WeakMap<Request, Principal>();

/** who is calling, as requireApiKey found it; undefined on a request it did not let through */
export function principalOf(req: Request): Principal | undefined {
  return PRINCIPALS.get(req);
}

/** what a layer before authentication left to be done once the principal is known, and allowed in */
const AFTER_AUTHENTICATION = new WeakMap<Request, (principal: Principal) => Promise<void>>();

/**
 * A step of a layer mounted before the edge's requireApiKey that needs the principal, or must not be taken for
 * a request that is refused (choosing a standby, which may wait: http/read-routing.ts). requireApiKey takes it
 * after the rate limits let the request in, before its turn among the user's requests; a request refused (401,
 * 403, 429) never takes it.
 */
export function afterAuthentication(req: Request, step: (principal: Principal) => Promise<void>): void {
  AFTER_AUTHENTICATION.set(req, step);
}

/**
 * Authentication first, then the rate limits of the principal found (a refusal: 429 RATE_LIMITED with
 * Retry-After, before the request is read). A request without a valid X-API-Key gets 401 before anything about it is parsed or
 * validated (no 422 listing fields, no 400 for broken JSON to a caller who may not call at all). The principal
 * is kept for the request's handlers (principalOf), so a request is authenticated once.
 */
export function requireApiKey(db: Database, services: Services, shape: 'rest' | 'graphql' | 'powerdns'): RequestHandler {
  // each edge answers in its own error shape: the REST error body, a GraphQL response with one error, or
  // PowerDNS's `{"error": "…"}` (its 401 says "Unauthorized", pdns webserver.cc)
  const refuse = (
    res: Response,
    code: 'UNAUTHENTICATED' | 'DATABASE_UNAVAILABLE' | 'FORBIDDEN_BY_POLICY' | 'RATE_LIMITED',
    error?: DomainError,
  ) => {
    const details = code === 'FORBIDDEN_BY_POLICY' ? [{ field: 'key', code, message: error?.message ?? '' }] : (error?.details ?? []);
    const body = errorBody(code, error?.message, code === 'FORBIDDEN_BY_POLICY' ? [] : details);
    if (shape === 'powerdns')
      res.status(body.code).json({ error: code === 'UNAUTHENTICATED' ? 'Unauthorized' : (error?.message ?? body.message) });
    else res.status(body.code).json(shape === 'rest' ? body : { errors: [{ message: body.message, extensions: { code, details } }] });
  };
  const refusalDelayMs = services.settings.rateLimitRefusalDelayMs;
  // without TRUST_PROXY, Express's `req.ip` is the peer's address (proxy-addr trusts no hop, so no
  // X-Forwarded-For is read): taken from the socket, without parsing that header on every request
  const { trustProxy } = services.settings.sessions;
  const peerIsClient = trustProxy === undefined || trustProxy === 'false';
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
      const apiKey = req.get('x-api-key');
      const sessionToken = apiKey === undefined ? sessionCookieOf(req) : undefined;
      // a person signed in by cookie (docs/people.md): only a request a cross-site page cannot make (CSRF)
      if (sessionToken !== undefined && !sameSiteRequest(req, services.settings.sessions.publicOrigin)) {
        const body = errorBody('CSRF_REFUSED');
        res
          .status(body.code)
          .json(
            shape === 'rest'
              ? body
              : shape === 'powerdns'
                ? { error: body.message }
                : { errors: [{ message: body.message, extensions: { code: 'CSRF_REFUSED' } }] },
          );
        return;
      }
      const address = sourceAddressOf((peerIsClient ? undefined : req.ip) ?? req.socket.remoteAddress);
      const principal =
        sessionToken !== undefined
          ? await services.sessions.authenticate(db, sessionToken, address)
          : await services.apiKeys.authenticate(db, apiKey, address);
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
        const step = AFTER_AUTHENTICATION.get(req);
        if (step) {
          AFTER_AUTHENTICATION.delete(req);
          await step(principal);
        }
        // then its turn among the user's requests running in this process (RATE_LIMIT_CONCURRENCY), before the
        // body is read; the turn ends when the answer is sent or the client has gone
        const leave = services.rateLimits.enter(principal, () => {
          if (!res.writableEnded && !req.socket.destroyed) next();
        });
        if (!leave) return refuseHeld(req, res, principal, 0, 'user', 'requests at once');
        whenClosed(res, leave);
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
export function wholeBodyFirst(limit: number, setting: BodyLimitSetting = 'BODY_LIMIT'): RequestHandler {
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
        const tooLarge = new BodyTooLarge(setting, limit);
        res.status(413).json(errorBody(tooLarge.code, tooLarge.message, tooLarge.details));
        req.resume();
      }
    };
    req.on('data', onData);
    req.once('end', () => finish());
    req.once('error', (error) => finish(error));
    req.once('aborted', () => finish(new Error('request aborted')));
  };
}

/**
 * GET /metrics: open to the addresses of METRICS_ALLOW (loopback by default: a Prometheus on the same host or
 * in the same pod), the admin key needed from anywhere else. The metrics name the secondaries and show every
 * tenant's activity, which a service exposed with HOST=0.0.0.0 should not hand to the whole network.
 */
export function metricsAccess(db: Database, services: Services): RequestHandler {
  const allowed = services.settings.metricsAllow;
  return async (req: Request, res: Response, next: NextFunction) => {
    // the peer itself, not X-Forwarded-For: a forwarded header is the client's to write
    if (inNetworks(allowed, req.socket.remoteAddress ?? '')) return next();
    try {
      const principal = await services.apiKeys.authenticate(db, req.get('x-api-key'), sourceAddressOf(req.socket.remoteAddress));
      if (principal?.kind === 'admin') return next();
      const body = errorBody(principal ? 'FORBIDDEN' : 'UNAUTHENTICATED');
      res.status(body.code).json(body);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'FORBIDDEN_BY_POLICY') {
        const body = errorBody('FORBIDDEN_BY_POLICY', error.message);
        return res.status(body.code).json(body);
      }
      if (!noteDatabaseFailure(error, 'authentication')) return next(error);
      res.set('Retry-After', String(RETRY_AFTER_SECONDS)).status(503).json(errorBody('DATABASE_UNAVAILABLE'));
    }
  };
}
