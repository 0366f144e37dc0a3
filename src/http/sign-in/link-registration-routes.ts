import type { Request, RequestHandler, Response, Router } from 'express';
import type { Database } from '../../db/pool';
import type { Services } from '../../services';
import { DomainError, statusOf } from '../../errors/catalogue';
import { errorBody } from '../error-body';
import { signingInClientOf } from './address-limit';
import { ceremonyOf, passkeyRefused, relyingPartyOf, setCeremonyCookie } from './passkey-ceremony';
import { setSessionCookie } from './session-cookie';

/** a bad link answers the catalogue's own status naming `token`; a refused passkey as every passkey */
function linkRefused(res: Response, error: unknown): void {
  if (error instanceof DomainError) {
    res.status(statusOf(error.code)).json(errorBody(error.code, error.message, error.details));
    return;
  }
  passkeyRefused(res, error);
}

/**
 * A passkey registered from a link, with no session (docs/people.md): an invitation's (a person's first) at
 * /invitation, a recovery link's (a member who lost theirs) at /recovery. `{token}` gives the registration's
 * options, `{token, response}` verifies it and answers as a sign-in (the session cookie). A bad token: the
 * catalogue's 4xx naming `token` (INVITATION_NOT_FOUND, INVITATION_NEEDS_SIGN_IN, RECOVERY_LINK_NOT_FOUND),
 * nothing written.
 */
export function addLinkRegistrationRoutes(passkeys: Router, db: Database, services: Services, byAddress: RequestHandler): void {
  for (const kind of ['invitation', 'recovery'] as const) {
    passkeys.post(`/${kind}/options`, byAddress, async (req: Request, res: Response) => {
      try {
        const { options, ceremony } = await services.passkeys.linkOptions(db, relyingPartyOf(req, services), kind, req.body?.token);
        setCeremonyCookie(req, res, ceremony);
        res.json(options);
      } catch (error) {
        linkRefused(res, error);
      }
    });
    passkeys.post(`/${kind}`, byAddress, async (req: Request, res: Response) => {
      try {
        const joined = await services.passkeys.registerFromLink(
          db,
          relyingPartyOf(req, services),
          kind,
          req.body?.token,
          ceremonyOf(req),
          req.body?.response,
          signingInClientOf(req),
        );
        setSessionCookie(req, res, joined.token);
        res.status(201).json({ email: joined.email, accountId: joined.accountId, role: joined.role });
      } catch (error) {
        linkRefused(res, error);
      }
    });
  }
}
