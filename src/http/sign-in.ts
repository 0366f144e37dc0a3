import express, { Request, Response, Router } from 'express';
import type { Database } from '../db/pool';
import type { Services } from '../services';
import { errorBody } from './error-body';
import { sameSiteRequest, sessionCookieOf } from './request-gates';
import { clientAddressOf, limitedByAddress } from './sign-in/address-limit';
import { addDeviceRoutes } from './sign-in/device-routes';
import { addOidcRoutes } from './sign-in/oidc-routes';
import { passkeyRoutes } from './sign-in/passkey-routes';
import { clearSessionCookie } from './sign-in/session-cookie';

/**
 * /auth: sign-out, the methods offered, and the sign-in methods' own routes (src/http/sign-in/): passkeys under
 * /passkey, OpenID Connect under /oidc, a terminal's sign-in (RFC 8628) under /device. The routes that need no credential share one limit per client address.
 */
export function signInRoutes(db: Database, services: Services): Router {
  const router = express.Router();
  addSessionRoutes(router, db, services);
  const byAddress = limitedByAddress();
  router.use('/passkey', passkeyRoutes(db, services, byAddress));
  addOidcRoutes(router, db, services, byAddress);
  addDeviceRoutes(router, db, services, byAddress);
  return router;
}

/** the session's own routes: sign-out, and which sign-in methods the console's sign-in page offers */
function addSessionRoutes(router: Router, db: Database, services: Services): void {
  /** ends this session (CSRF: as every cookie request) and clears the cookie; audited as session-ended */
  router.post('/sign-out', async (req: Request, res: Response) => {
    const token = sessionCookieOf(req);
    // with the cookie or without: a cross-site form sends none (SameSite=Lax), and its answer's cleared cookie
    // would still sign the browser out
    if (!sameSiteRequest(req, services.settings.sessions.publicOrigin)) {
      res.status(403).json(errorBody('CSRF_REFUSED'));
      return;
    }
    const address = clientAddressOf(req);
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
}
