import express, { Request, Response, Router } from 'express';
import type { Database } from '../db/pool';
import type { Services } from '../services';
import { SESSION_COOKIE } from '../services/sessions.service';
import { errorBody } from './error-body';
import { sameSiteRequest, sessionCookieOf } from './request-gates';
import type { RequestContext } from '../services/context';
import { sourceAddressOf } from '../services/audit-log';
import { SignInRefused } from '../services/oidc-sign-in.service';
import { DomainError, statusOf } from '../errors/catalogue';
import { SignInLimits } from '../services/rate-limits';

/** the cookie that ties the browser to its OIDC sign-in under way (the flow's id; its hash is stored) */
const FLOW_COOKIE = 'zk_oidc_flow';
/** the cookie that ties the browser to its passkey ceremony under way (the challenge's id; its hash is stored) */
const CEREMONY_COOKIE = 'zk_passkey_ceremony';

/** this service's origin as the browser sees it: PUBLIC_ORIGIN, or the request's scheme and host */
function originOf(req: Request, publicOrigin: string | undefined): string {
  return publicOrigin ?? `${req.protocol}://${req.get('host')}`;
}

function cookieOf(req: Request, name: string): string | undefined {
  for (const pair of (req.get('cookie') ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

/**
 * The session cookie (docs/people.md): HttpOnly (no script reads it), SameSite=Lax (not sent with a cross-site
 * POST or subresource; RFC 6265bis §8.8), Secure when the request came over TLS (directly, or through a proxy
 * that TRUST_PROXY trusts), Path=/ and no Max-Age: the server's idle and absolute timeouts decide its life.
 */
export function setSessionCookie(req: Request, res: Response, token: string): void {
  res.cookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure: req.secure, path: '/' });
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure: req.secure, path: '/' });
}

/** /auth: sign-out (and the sign-in methods' own routes, mounted beside it) */
export function signInRoutes(db: Database, services: Services): Router {
  const router = express.Router();
  /** ends this session (CSRF: as every cookie request) and clears the cookie; audited as session-ended */
  router.post('/sign-out', async (req: Request, res: Response) => {
    const token = sessionCookieOf(req);
    // with the cookie or without: a cross-site form sends none (SameSite=Lax), and its answer's cleared cookie
    // would still sign the browser out
    if (!sameSiteRequest(req, services.settings.sessions.publicOrigin)) {
      res.status(403).json(errorBody('CSRF_REFUSED'));
      return;
    }
    const address = sourceAddressOf(req.ip ?? req.socket.remoteAddress);
    const principal = await services.sessions.authenticate(db, token, address);
    if (principal) await services.sessions.end({ db, principal, warnings: [] }, principal.keyId);
    else await services.sessions.endAwaitingSecondFactor(db, token, address);
    clearSessionCookie(req, res);
    res.status(204).end();
  });
  /** which sign-in methods this service offers, and the provider's name for "Sign in with …" (the console's sign-in page asks) */
  router.get('/methods', (_req, res) => {
    res.json({ oidc: services.oidc.configured, oidcProvider: services.settings.oidc?.providerName ?? null, passkey: true });
  });

  // the routes that need no credential, limited per client address (SignInLimits): 429 with Retry-After
  const limits = new SignInLimits();
  const byAddress = (req: Request, res: Response, next: () => void) => {
    try {
      limits.take(sourceAddressOf(req.ip ?? req.socket.remoteAddress));
      next();
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      res.set('Retry-After', String(error.details[0]?.retryAfter ?? 1));
      res.status(429).json(errorBody(error.code, error.message, error.details));
    }
  };

  // ---- passkeys (services/passkeys.service.ts): POSTs with X-Requested-With and this origin, as every cookie request ----
  const passkeys = express.Router();
  passkeys.use(express.json({ limit: 64 * 1024 }), (req: Request, res: Response, next) => {
    if (!sameSiteRequest(req, services.settings.sessions.publicOrigin)) {
      res.status(403).json(errorBody('CSRF_REFUSED'));
      return;
    }
    next();
  });
  const relyingParty = (req: Request) => ({ origin: originOf(req, services.settings.sessions.publicOrigin) });
  const ceremonyCookie = (req: Request, res: Response, ceremony: string) =>
    res.cookie(CEREMONY_COOKIE, ceremony, {
      httpOnly: true,
      sameSite: 'strict',
      secure: req.secure,
      path: '/auth/passkey',
      maxAge: 300_000,
    });
  /** the person signed in (the cookie), or an answer already sent */
  const signedIn = async (req: Request, res: Response): Promise<RequestContext | undefined> => {
    const principal = await services.sessions.authenticate(db, sessionCookieOf(req), sourceAddressOf(req.ip ?? req.socket.remoteAddress));
    if (!principal) res.status(401).json(errorBody('UNAUTHENTICATED'));
    return principal ? { db, principal, warnings: [] } : undefined;
  };
  const refused = (res: Response, error: unknown) => {
    if (error instanceof SignInRefused)
      return res.status(401).json(errorBody('SIGN_IN_FAILED', `The passkey was refused: ${error.reason}`));
    if (error instanceof DomainError) return res.status(error.code === 'NOT_SIGNED_IN' ? 403 : 400).json(errorBody(error.code));
    throw error;
  };
  passkeys.post('/register/options', async (req: Request, res: Response) => {
    const ctx = await signedIn(req, res);
    if (!ctx) return;
    try {
      const { options, ceremony } = await services.passkeys.registrationOptions(ctx, relyingParty(req));
      ceremonyCookie(req, res, ceremony);
      res.json(options);
    } catch (error) {
      refused(res, error);
    }
  });
  passkeys.post('/register', async (req: Request, res: Response) => {
    const ctx = await signedIn(req, res);
    if (!ctx) return;
    try {
      const id = await services.passkeys.register(ctx, relyingParty(req), cookieOf(req, CEREMONY_COOKIE), req.body?.response);
      res.status(201).json({ id });
    } catch (error) {
      refused(res, error);
    }
  });
  passkeys.post('/sign-in/options', byAddress, async (req: Request, res: Response) => {
    const { options, ceremony } = await services.passkeys.signInOptions(db, relyingParty(req));
    ceremonyCookie(req, res, ceremony);
    res.json(options);
  });
  passkeys.post('/sign-in', byAddress, async (req: Request, res: Response) => {
    try {
      const { token, email } = await services.passkeys.signIn(db, relyingParty(req), cookieOf(req, CEREMONY_COOKIE), req.body?.response, {
        sourceAddress: sourceAddressOf(req.ip ?? req.socket.remoteAddress),
        userAgent: req.get('user-agent'),
      });
      setSessionCookie(req, res, token);
      res.json({ email });
    } catch (error) {
      refused(res, error);
    }
  });
  /**
   * A passkey registered from a link, with no session (docs/people.md): an invitation's (a person's first) at
   * /invitation, a recovery link's (a member who lost theirs) at /recovery. `{token}` gives the registration's
   * options, `{token, response}` verifies it and answers as a sign-in (the session cookie). A bad token: the
   * catalogue's 4xx naming `token` (INVITATION_NOT_FOUND, INVITATION_NEEDS_SIGN_IN, RECOVERY_LINK_NOT_FOUND),
   * nothing written.
   */
  const linkRefused = (res: Response, error: unknown) => {
    if (error instanceof DomainError) return res.status(statusOf(error.code)).json(errorBody(error.code, error.message, error.details));
    return refused(res, error);
  };
  for (const kind of ['invitation', 'recovery'] as const) {
    passkeys.post(`/${kind}/options`, byAddress, async (req: Request, res: Response) => {
      try {
        const { options, ceremony } = await services.passkeys.linkOptions(db, relyingParty(req), kind, req.body?.token);
        ceremonyCookie(req, res, ceremony);
        res.json(options);
      } catch (error) {
        linkRefused(res, error);
      }
    });
    passkeys.post(`/${kind}`, byAddress, async (req: Request, res: Response) => {
      try {
        const joined = await services.passkeys.registerFromLink(
          db,
          relyingParty(req),
          kind,
          req.body?.token,
          cookieOf(req, CEREMONY_COOKIE),
          req.body?.response,
          { sourceAddress: sourceAddressOf(req.ip ?? req.socket.remoteAddress), userAgent: req.get('user-agent') },
        );
        setSessionCookie(req, res, joined.token);
        res.status(201).json({ email: joined.email, accountId: joined.accountId, role: joined.role });
      } catch (error) {
        linkRefused(res, error);
      }
    });
  }
  /** after an OIDC sign-in of a person with a passkey: the session waits for it (docs/people.md) */
  const awaiting = async (req: Request, res: Response) => {
    const session = await services.sessions.awaitingSecondFactor(
      db,
      sessionCookieOf(req),
      sourceAddressOf(req.ip ?? req.socket.remoteAddress),
    );
    if (!session) res.status(401).json(errorBody('UNAUTHENTICATED'));
    return session;
  };
  passkeys.post('/second-factor/options', async (req: Request, res: Response) => {
    const session = await awaiting(req, res);
    if (!session) return;
    const { options, ceremony } = await services.passkeys.secondFactorOptions(db, relyingParty(req), session);
    ceremonyCookie(req, res, ceremony);
    res.json(options);
  });
  passkeys.post('/second-factor', async (req: Request, res: Response) => {
    const session = await awaiting(req, res);
    if (!session) return;
    try {
      const address = sourceAddressOf(req.ip ?? req.socket.remoteAddress);
      await services.passkeys.secondFactor(db, relyingParty(req), session, cookieOf(req, CEREMONY_COOKIE), req.body?.response, address);
      res.json({ email: session.email });
    } catch (error) {
      refused(res, error);
    }
  });
  router.use('/passkey', passkeys);

  /** OpenID Connect: off to the provider, with PKCE, state and nonce (services/oidc-sign-in.service.ts) */
  router.get('/oidc/start', byAddress, async (req: Request, res: Response) => {
    if (!services.oidc.configured) {
      res.status(404).json(errorBody('SIGN_IN_NOT_CONFIGURED'));
      return;
    }
    const { url, flow } = await services.oidc.begin(db, originOf(req, services.settings.sessions.publicOrigin));
    // SameSite=Lax: the provider's redirect back is a top-level GET, which carries it
    res.cookie(FLOW_COOKIE, flow, { httpOnly: true, sameSite: 'lax', secure: req.secure, path: '/auth/oidc', maxAge: 600_000 });
    res.redirect(303, url);
  });

  /** the provider's redirect back: a session and its cookie, then the console; a refusal answers 401 (audited) */
  router.get('/oidc/callback', byAddress, async (req: Request, res: Response) => {
    res.clearCookie(FLOW_COOKIE, { httpOnly: true, sameSite: 'lax', secure: req.secure, path: '/auth/oidc' });
    try {
      const url = new URL(req.originalUrl, originOf(req, services.settings.sessions.publicOrigin));
      const { token } = await services.oidc.finish(db, cookieOf(req, FLOW_COOKIE), url, {
        sourceAddress: sourceAddressOf(req.ip ?? req.socket.remoteAddress),
        userAgent: req.get('user-agent'),
      });
      setSessionCookie(req, res, token);
      res.redirect(303, '/console/');
    } catch (error) {
      if (error instanceof SignInRefused) {
        res.status(401).json(errorBody('SIGN_IN_FAILED', `The sign-in was refused: ${error.reason}`));
        return;
      }
      if (error instanceof DomainError) {
        res.status(404).json(errorBody(error.code));
        return;
      }
      throw error;
    }
  });
  return router;
}
