import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Principal } from '../auth/principal';
import type { Database } from '../db/pool';
import { CONSISTENCY_TOKEN_HEADER, ReadReplicas } from '../db/read-replicas';
import { sessionTokenOf, tokenAfterWrite } from '../graphql/standby-reads';
import { logger } from '../logger';
import type { Services } from '../services';
import { afterAuthentication, principalOf } from './request-gates';

/**
 * Which database answers an HTTP request of the REST layer and the PowerDNS API (docs/deployment.md, «Reading
 * from standbys»). The rule is the method's: a GET or HEAD only reads (RFC 9110 §9.2.1, safe methods), and what it
 * reads may lag (lists, search, history, exports), so a standby may answer it (db/read-replicas.ts); every other
 * method may write, and runs on the primary, as authentication, rate limits and the audit of refusals do for any
 * request. GraphQL decides by the operation instead (graphql/standby-reads.ts).
 */

const readDatabases = new WeakMap<Request, Database>();

/** the database a request's services read from: the one chosen for it, or the primary */
export function databaseOf(req: Request, primary: Database): Database {
  return readDatabases.get(req) ?? primary;
}

/**
 * Chooses a GET's database (waiting for a standby to replay the Consistency-Token sent back, or the one of the
 * person's session, up to REPLICA_WAIT_MS) and gives every other request's answer the token of what it wrote:
 * the primary's WAL position when its answer is sent, after the commits it waited for, kept on the person's
 * session too. An answer streamed (its headers sent before its end) is a read's. `stampWrites` false: GETs only
 * (GET /graphql, whose mutations are refused; a POST's operation decides, in graphql/standby-reads.ts).
 *
 * A GET's database is chosen once the request is authenticated: after requireApiKey (/graphql), or, mounted
 * before it (/api, whose routers authenticate route by route), in the step requireApiKey takes once it let the
 * request in (afterAuthentication). A request refused there never waits for a standby, and the session's token
 * is known. Either way before its conditional GET (http/conditional-get.ts) reads the version its ETag stands
 * for, from the same database.
 */
export function readRouting(replicas: ReadReplicas, services: Services, primary: Database, stampWrites = true): RequestHandler {
  const choose = async (req: Request, principal: Principal) => {
    readDatabases.set(req, await replicas.readDatabase(req.get(CONSISTENCY_TOKEN_HEADER), sessionTokenOf(principal)));
  };
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' || req.method === 'HEAD') {
      const principal = principalOf(req);
      if (principal) choose(req, principal).then(() => next(), next);
      else {
        afterAuthentication(req, (found) => choose(req, found));
        next();
      }
      return;
    }
    if (stampWrites) stampConsistencyToken(replicas, services, primary, req, res);
    next();
  };
}

/** the answer's end waits for the primary's position, which goes into its headers */
function stampConsistencyToken(replicas: ReadReplicas, services: Services, primary: Database, req: Request, res: Response): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((...args: unknown[]) => {
    if (res.headersSent || res.statusCode >= 500) return end(...args);
    // a refused write (4xx) wrote nothing of the person's: its session's token is left as it was
    const principal = res.statusCode < 400 ? principalOf(req) : undefined;
    tokenAfterWrite(replicas, services, primary, principal).then(
      (token) => {
        if (!res.headersSent) res.setHeader(CONSISTENCY_TOKEN_HEADER, token);
        end(...args);
      },
      (error: unknown) => {
        // the answer goes without its token: a read that follows is then served as any other
        logger.warn({ err: error }, "a write's consistency token could not be read");
        end(...args);
      },
    );
    return res;
  }) as Response['end'];
}
