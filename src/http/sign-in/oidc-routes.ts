import type { Request, RequestHandler, Response, Router } from 'express';
import type { Database } from '../../db/pool';
import type { Services } from '../../services';
import { SignInRefused } from '../../services/people/oidc-sign-in.service';
import { DomainError } from '../../errors/catalogue';
import { errorBody } from '../error-body';
import { signingInClientOf } from './address-limit';
import { cookieOf, originOf, setSessionCookie } from './session-cookie';

/** the cookie that ties the browser to its OIDC sign-in under way (the flow's id; its hash is stored) */
const FLOW_COOKIE = 'zk_oidc_flow';

/** /auth/oidc: OpenID Connect sign-in (services/people/oidc-sign-in.service.ts), limited per client address */
export function addOidcRoutes(router: Router, db: Database, services: Services, byAddress: RequestHandler): void {
  /** off to the provider, with PKCE, state and nonce */
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
      const { token } = await services.oidc.finish(db, cookieOf(req, FLOW_COOKIE), url, signingInClientOf(req));
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
}
