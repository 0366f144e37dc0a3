import express, { Request, RequestHandler, Response, Router } from 'express';
import type { Database } from '../../db/pool';
import type { Services } from '../../services';
import { DomainError, ERROR_CATALOGUE } from '../../errors/catalogue';
import { canonicalUserCode } from '../../services/people/device-sign-in.service';
import { errorBody } from '../error-body';
import { sessionCookieOf } from '../request-gates';
import { clientAddressOf, signingInClientOf } from './address-limit';
import { originOf } from './session-cookie';

/** the second device's page, where a person signed in approves a terminal's code (the passkey method) */
const APPROVAL_PATH = '/auth/device/approve';

/**
 * /auth/device: signing in from a terminal (services/people/device-sign-in.service.ts; RFC 8628). Begun and polled
 * without a credential (the device code is the poller's own secret; both limited per client address); the
 * second device's page takes a person's session cookie. Bodies as RFC 8628 sends them (a form) or as JSON.
 */
export function addDeviceRoutes(router: Router, db: Database, services: Services, byAddress: RequestHandler): void {
  const body = [express.json({ limit: 4096 }), express.urlencoded({ limit: 4096, extended: false, parameterLimit: 10 })];

  /** §3.1–3.2: a device code for the CLI, a user code and page for the person; `method`: oidc (the default when configured) or passkey */
  router.post('/device', byAddress, ...body, async (req: Request, res: Response) => {
    const method = req.body?.method ?? (services.oidc.configured ? 'oidc' : 'passkey');
    if (method !== 'oidc' && method !== 'passkey') {
      const message = 'method: oidc or passkey';
      res.status(422).json(errorBody('INVALID_INPUT', message, [{ field: 'method', code: 'INVALID_INPUT', message }]));
      return;
    }
    try {
      const approvalPage = `${originOf(req, services.settings.sessions.publicOrigin)}${APPROVAL_PATH}`;
      const authorization = await services.deviceSignIn.begin(db, method, approvalPage, signingInClientOf(req));
      res.set('Cache-Control', 'no-store').json(authorization);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      res.status(ERROR_CATALOGUE[error.code].status).json(errorBody(error.code));
    }
  });

  /** §3.4–3.5: the session once the person finished; until then 400 with the RFC's error code (RFC 6749 §5.2) */
  router.post('/device/token', byAddress, ...body, async (req: Request, res: Response) => {
    const deviceCode = typeof req.body?.device_code === 'string' ? req.body.device_code : '';
    const answer = await services.deviceSignIn.poll(db, deviceCode, { sourceAddress: clientAddressOf(req) });
    res.set('Cache-Control', 'no-store');
    if ('token' in answer) res.json({ session_token: answer.token, token_type: 'zk_session', email: answer.email });
    else res.status(400).json({ error: answer.error, error_description: answer.description });
  });

  router.get('/device/approve', async (req: Request, res: Response) => {
    const principal = await services.sessions.authenticate(db, sessionCookieOf(req), clientAddressOf(req));
    const code = typeof req.query.code === 'string' ? canonicalUserCode(req.query.code) : '';
    sendPage(res, principal ? approvalForm(principal.person?.email ?? '', code) : signInFirst(code));
  });

  /** the person's answer: a form posted from this very page (its origin checked; the cookie is SameSite=Lax) */
  router.post('/device/approve', ...body, async (req: Request, res: Response) => {
    if (!sameOriginForm(req, originOf(req, services.settings.sessions.publicOrigin))) {
      res.status(403).json(errorBody('CSRF_REFUSED'));
      return;
    }
    const principal = await services.sessions.authenticate(db, sessionCookieOf(req), clientAddressOf(req));
    if (!principal) {
      res.status(401).json(errorBody('UNAUTHENTICATED'));
      return;
    }
    const verdict = req.body?.verdict === 'deny' ? 'deny' : 'approve';
    try {
      await services.deviceSignIn.answer({ db, principal, warnings: [] }, String(req.body?.code ?? ''), verdict);
      sendPage(
        res,
        `<h1>${verdict === 'approve' ? 'Signed in' : 'Denied'}</h1><p>${
          verdict === 'approve' ? 'The terminal is signed in as you. You may close this page.' : 'The terminal was not signed in.'
        }</p>`,
      );
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      res.status(404);
      sendPage(
        res,
        `<h1>Not found</h1><p>${escapeHtml(error.details[0]?.message ?? error.message)}</p><p><a href="${APPROVAL_PATH}">Try again</a></p>`,
      );
    }
  });
}

/**
 * A form's POST is this service's own: its Origin (every browser sends one with a POST) or Sec-Fetch-Site says so.
 * With the session cookie's SameSite=Lax, another site's form arrives without the cookie anyway.
 */
function sameOriginForm(req: Request, origin: string): boolean {
  const fetchSite = req.get('sec-fetch-site');
  if (fetchSite !== undefined) return fetchSite === 'same-origin';
  return req.get('origin') === origin;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function approvalForm(email: string, code: string): string {
  return `<h1>Sign in a terminal</h1>
<p>Signed in as <strong>${escapeHtml(email)}</strong>. Approve only a code your own terminal shows: the terminal
then acts as you.</p>
<form method="post" action="${APPROVAL_PATH}">
<label>Code <input name="code" value="${escapeHtml(code)}" autocomplete="off" required></label>
<button name="verdict" value="approve" type="submit">Approve</button>
<button name="verdict" value="deny" type="submit">Deny</button>
</form>`;
}

function signInFirst(code: string): string {
  const back = `${APPROVAL_PATH}${code ? `?code=${encodeURIComponent(code)}` : ''}`;
  return `<h1>Sign in a terminal</h1>
<p>Sign in first (with your passkey), then come back to this page: <a href="/console/">sign in to the console</a>,
then open <a href="${escapeHtml(back)}">${escapeHtml(back)}</a> again.</p>`;
}

function sendPage(res: Response, content: string): void {
  res
    .set('Cache-Control', 'no-store')
    .set('Content-Security-Policy', "default-src 'none'; form-action 'self'; frame-ancestors 'none'")
    .type('html')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Zonekeeper: sign in a terminal</title></head><body>${content}</body></html>`,
    );
}
