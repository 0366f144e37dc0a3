import express, { Request, RequestHandler, Response, Router } from 'express';
import type { Database } from '../../db/pool';
import type { Services } from '../../services';
import type { RequestContext } from '../../services/context';
import { errorBody } from '../error-body';
import { sameSiteRequest, sessionCookieOf } from '../request-gates';
import { clientAddressOf, signingInClientOf } from './address-limit';
import { addLinkRegistrationRoutes } from './link-registration-routes';
import { ceremonyOf, passkeyRefused, relyingPartyOf, setCeremonyCookie } from './passkey-ceremony';
import { setSessionCookie } from './session-cookie';

/**
 * /auth/passkey (services/people/passkeys.service.ts): POSTs with X-Requested-With and this origin, as every cookie
 * request. A signed-in person adds a passkey; anyone signs in with one; a link registers one; a session that
 * an OIDC sign-in began waits for one as its second factor.
 */
export function passkeyRoutes(db: Database, services: Services, byAddress: RequestHandler): Router {
  const passkeys = express.Router();
  passkeys.use(express.json({ limit: 64 * 1024 }), (req: Request, res: Response, next) => {
    if (!sameSiteRequest(req, services.settings.sessions.publicOrigin)) {
      res.status(403).json(errorBody('CSRF_REFUSED'));
      return;
    }
    next();
  });
  addPasskeyRegistrationRoutes(passkeys, db, services);
  addPasskeySignInRoutes(passkeys, db, services, byAddress);
  addLinkRegistrationRoutes(passkeys, db, services, byAddress);
  addSecondFactorRoutes(passkeys, db, services);
  return passkeys;
}

/** a signed-in person (the session cookie) adds a passkey to their own */
function addPasskeyRegistrationRoutes(passkeys: Router, db: Database, services: Services): void {
  /** the person signed in (the cookie), or an answer already sent */
  const signedIn = async (req: Request, res: Response): Promise<RequestContext | undefined> => {
    const principal = await services.sessions.authenticate(db, sessionCookieOf(req), clientAddressOf(req));
    if (!principal) res.status(401).json(errorBody('UNAUTHENTICATED'));
    return principal ? { db, principal, warnings: [] } : undefined;
  };
  passkeys.post('/register/options', async (req: Request, res: Response) => {
    const ctx = await signedIn(req, res);
    if (!ctx) return;
    try {
      const { options, ceremony } = await services.passkeys.registrationOptions(ctx, relyingPartyOf(req, services));
      setCeremonyCookie(req, res, ceremony);
      res.json(options);
    } catch (error) {
      passkeyRefused(res, error);
    }
  });
  passkeys.post('/register', async (req: Request, res: Response) => {
    const ctx = await signedIn(req, res);
    if (!ctx) return;
    try {
      const id = await services.passkeys.register(ctx, relyingPartyOf(req, services), ceremonyOf(req), req.body?.response);
      res.status(201).json({ id });
    } catch (error) {
      passkeyRefused(res, error);
    }
  });
}

/** a sign-in with a passkey alone, limited per client address */
function addPasskeySignInRoutes(passkeys: Router, db: Database, services: Services, byAddress: RequestHandler): void {
  passkeys.post('/sign-in/options', byAddress, async (req: Request, res: Response) => {
    const { options, ceremony } = await services.passkeys.signInOptions(db, relyingPartyOf(req, services));
    setCeremonyCookie(req, res, ceremony);
    res.json(options);
  });
  passkeys.post('/sign-in', byAddress, async (req: Request, res: Response) => {
    try {
      const { token, email } = await services.passkeys.signIn(
        db,
        relyingPartyOf(req, services),
        ceremonyOf(req),
        req.body?.response,
        signingInClientOf(req),
      );
      setSessionCookie(req, res, token);
      res.json({ email });
    } catch (error) {
      passkeyRefused(res, error);
    }
  });
}

/** after an OIDC sign-in of a person with a passkey: the session waits for it (docs/people.md) */
function addSecondFactorRoutes(passkeys: Router, db: Database, services: Services): void {
  /** the session awaiting its second factor (the cookie), or an answer already sent */
  const awaiting = async (req: Request, res: Response) => {
    const session = await services.sessions.awaitingSecondFactor(db, sessionCookieOf(req), clientAddressOf(req));
    if (!session) res.status(401).json(errorBody('UNAUTHENTICATED'));
    return session;
  };
  passkeys.post('/second-factor/options', async (req: Request, res: Response) => {
    const session = await awaiting(req, res);
    if (!session) return;
    const { options, ceremony } = await services.passkeys.secondFactorOptions(db, relyingPartyOf(req, services), session);
    setCeremonyCookie(req, res, ceremony);
    res.json(options);
  });
  passkeys.post('/second-factor', async (req: Request, res: Response) => {
    const session = await awaiting(req, res);
    if (!session) return;
    try {
      const rp = relyingPartyOf(req, services);
      await services.passkeys.secondFactor(db, rp, session, ceremonyOf(req), req.body?.response, clientAddressOf(req));
      res.json({ email: session.email });
    } catch (error) {
      passkeyRefused(res, error);
    }
  });
}
