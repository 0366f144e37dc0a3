import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Database } from '../db/pool';
import { CONSISTENCY_TOKEN_HEADER, ReadReplicas } from '../db/read-replicas';
import { logger } from '../logger';

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
 * Chooses a GET's database (waiting for a standby to replay a Consistency-Token sent back, up to REPLICA_WAIT_MS)
 * and gives every other request's answer the token of what it wrote: the primary's WAL position when its answer
 * is sent, after the commits it waited for. An answer streamed (its headers sent before its end) is a read's.
 * `stampWrites` false: GETs only (GET /graphql, whose mutations are refused; a POST's operation decides, in
 * graphql/standby-reads.ts). A GET's database is chosen here, before its conditional GET (http/conditional-get.ts)
 * reads the version its ETag stands for, from the same database.
 */
export function readRouting(replicas: ReadReplicas, stampWrites = true): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' || req.method === 'HEAD') {
      replicas.readDatabase(req.get(CONSISTENCY_TOKEN_HEADER)).then((db) => {
        readDatabases.set(req, db);
        next();
      }, next);
      return;
    }
    if (stampWrites) stampConsistencyToken(replicas, res);
    next();
  };
}

/** the answer's end waits for the primary's position, which goes into its headers */
function stampConsistencyToken(replicas: ReadReplicas, res: Response): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((...args: unknown[]) => {
    if (res.headersSent || res.statusCode >= 500) return end(...args);
    replicas.positionAfterWrite().then(
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
