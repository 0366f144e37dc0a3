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

export function webConsole(): Router {
  const router = Router();
  router.get('/', (_req: Request, res: Response) => res.redirect(302, '/console/'));
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
    const index = path.join(CONSOLE_DIR, 'index.html');
    if (!existsSync(index)) {
      return res.status(503).type('text').send('The console is not built: run `npm run build` (it builds the service and the console).\n');
    }
    res.set('Cache-Control', 'no-cache').sendFile(index);
  });
  return router;
}
