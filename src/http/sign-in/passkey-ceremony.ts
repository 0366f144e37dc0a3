import type { Request, Response } from 'express';
import type { Services } from '../../services';
import { SignInRefused } from '../../services/people/oidc-sign-in.service';
import { DomainError } from '../../errors/catalogue';
import { errorBody } from '../error-body';
import { cookieOf, originOf } from './session-cookie';

/** the cookie that ties the browser to its passkey ceremony under way (the challenge's id; its hash is stored) */
const CEREMONY_COOKIE = 'zk_passkey_ceremony';

/** the relying party a passkey is registered for and signed in with: this service's origin */
export function relyingPartyOf(req: Request, services: Services): { origin: string } {
  return { origin: originOf(req, services.settings.sessions.publicOrigin) };
}

/** the ceremony begun (its options answered): strict to this path, five minutes */
export function setCeremonyCookie(req: Request, res: Response, ceremony: string): void {
  res.cookie(CEREMONY_COOKIE, ceremony, {
    httpOnly: true,
    sameSite: 'strict',
    secure: req.secure,
    path: '/auth/passkey',
    maxAge: 300_000,
  });
}

/** the ceremony under way in this browser, if any */
export function ceremonyOf(req: Request): string | undefined {
  return cookieOf(req, CEREMONY_COOKIE);
}

/** a refused passkey: 401 SIGN_IN_FAILED with the reason; another refusal of the service 403 (not signed in) or 400 */
export function passkeyRefused(res: Response, error: unknown): void {
  if (error instanceof SignInRefused) {
    res.status(401).json(errorBody('SIGN_IN_FAILED', `The passkey was refused: ${error.reason}`));
    return;
  }
  if (error instanceof DomainError) {
    res.status(error.code === 'NOT_SIGNED_IN' ? 403 : 400).json(errorBody(error.code));
    return;
  }
  throw error;
}
