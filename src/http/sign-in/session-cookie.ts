import type { Request, Response } from 'express';
import { SESSION_COOKIE } from '../../services/people/sessions.service';

/** this service's origin as the browser sees it: PUBLIC_ORIGIN, or the request's scheme and host */
export function originOf(req: Request, publicOrigin: string | undefined): string {
  return publicOrigin ?? `${req.protocol}://${req.get('host')}`;
}

/** one cookie's value from the request's Cookie header; an empty value counts as none */
export function cookieOf(req: Request, name: string): string | undefined {
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
