import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { Request, Response, Router } from 'express';

/**
 * The web console (console/, built by `npm run build` into dist/console): static files only. It talks to the
 * public /graphql like any client, so this router holds no data and needs no key. Found from the package root,
 * so the compiled service (dist/src/http) and the tests (src/http) serve the same build.
 */
function packageRoot(from: string): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

export const CONSOLE_DIR = path.join(packageRoot(__dirname), 'dist', 'console');

/**
 * Its pages may load scripts, styles and connections (HTTP and the graphql-ws WebSocket) from this origin only:
 * the build has no inline script, and nothing comes from a CDN.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The console's page asked for at a loopback address (`http://127.0.0.1:3000/`, where the service listens by
 * default): the same page at `localhost`, as a passkey (WebAuthn) is made and used only for a domain, and an IP
 * address is none (WebAuthn Level 2 §5.1.3: the RP ID must be a registrable domain suffix of the origin's
 * effective domain; browsers say "127.0.0.1 is an invalid domain"). Only where a passkey is the way in (no
 * PUBLIC_ORIGIN names the origin, behind a proxy it does; no OpenID Connect provider, whose registered redirect
 * names the address its operator chose), and only for a browser on this machine; the fragment (an invitation's)
 * stays with the browser across the redirect.
 */
function atLocalhost(req: Request, leadToLocalhost: boolean, path = req.originalUrl): string | undefined {
  if (!leadToLocalhost) return undefined;
  // a browser on this machine, not a proxy in front of the service (it says whom it forwards for)
  if (!/^(127\.|::1$|::ffff:127\.)/.test(req.socket.remoteAddress ?? '')) return undefined;
  if (req.get('forwarded') || req.get('x-forwarded-for') || req.get('x-forwarded-host')) return undefined;
  const host = req.get('host') ?? '';
  const loopback = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(:\d+)?$/.exec(host);
  if (!loopback) return undefined;
  return `${req.protocol}://localhost${loopback[2] ?? ''}${path}`;
}

/** `leadToLocalhost`: a passkey is the default way in (settings: no PUBLIC_ORIGIN, no OIDC_ISSUER) */
export function webConsole(leadToLocalhost: boolean): Router {
  const router = Router();
  router.get('/', (req: Request, res: Response) => res.redirect(302, atLocalhost(req, leadToLocalhost, '/console/') ?? '/console/'));
  router.use('/console', (req: Request, res: Response, next) => {
    res.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.set('X-Content-Type-Options', 'nosniff');
    res.set('Referrer-Policy', 'no-referrer');
    next();
  });
  // hashed file names: cached for a year; index.html is revalidated so a new build is picked up at once
  router.use('/console/assets', express.static(path.join(CONSOLE_DIR, 'assets'), { immutable: true, maxAge: '365d', index: false }));
  router.get(['/console', '/console/'], (req: Request, res: Response) => {
    if (req.path === '/console') return res.redirect(301, '/console/');
    const local = atLocalhost(req, leadToLocalhost);
    if (local) return res.redirect(302, local);
    const index = path.join(CONSOLE_DIR, 'index.html');
    if (!existsSync(index)) {
      return res.status(503).type('text').send('The console is not built: run `npm run build` (it builds the service and the console).\n');
    }
    res.set('Cache-Control', 'no-cache').sendFile(index);
  });
  return router;
}
