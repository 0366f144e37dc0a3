import { createHash } from 'node:crypto';
import type { Database } from '../db/pool';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import onHeaders from 'on-headers';
import { noteDatabaseFailure } from '../db/availability';
import { logger } from '../logger';
import { readVersion } from '../services/operations/read-versions';
import { databaseOf } from './read-routing';
import { principalOf } from './request-gates';

/**
 * Conditional GETs for pollers (RFC 9110 §13.1.2): a GET answer carries an ETag derived from the version of
 * the data the caller can see (services/operations/read-versions.ts: one statement, no record rows) and the request
 * itself, and a request whose If-None-Match holds it is answered 304 before anything else is read.
 *
 * The version is read before the answer is built, so the ETag may label an answer newer than it (the next
 * poll then sees another version and fetches again), never an older one. Only 200 answers keep the ETag.
 * `withPropagation`: the answers may show propagation state, which changes without a new zone serial.
 * `zoneParam`: the answer shows only the zone this path parameter names, so its version is that zone's alone.
 */
export function conditionalGet(db: Database, options: { withPropagation: boolean; variant: string; zoneParam?: string }): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    let etag: string;
    try {
      // requireApiKey has run and let the request through
      const principal = principalOf(req);
      if (!principal) return next();
      const zone = options.zoneParam === undefined ? undefined : String(req.params[options.zoneParam]);
      // from the database the answer is read from (a standby: http/read-routing.ts), so that the ETag never
      // labels an answer older than the version it stands for
      const version = await readVersion(databaseOf(req, db), principal, options.withPropagation, zone);
      const digest = createHash('sha256')
        .update(JSON.stringify([options.variant, principal, version, req.originalUrl]))
        .digest('base64url');
      etag = `"${digest.slice(0, 32)}"`;
    } catch (error) {
      // no version, no ETag: the request goes on and meets the outage (or the error) where it is answered
      if (!noteDatabaseFailure(error, 'conditional GET'))
        logger.warn({ err: error }, 'conditional GET: the data version could not be read');
      return next();
    }
    // revalidate on every use: the answer is private to the key and may change at any moment
    res.set({ ETag: etag, 'Cache-Control': 'private, no-cache' });
    if (req.fresh) {
      res.status(304).end();
      return;
    }
    onHeaders(res, () => {
      if (res.statusCode !== 200) res.removeHeader('ETag');
    });
    next();
  };
}
