import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { requestLogger } from '../logger';

const PROBES = new Set(['/health', '/ready', '/metrics']);

/** a request id a client or a proxy may set: short, and safe to put in a log line and a header */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * One log line per HTTP request when its answer is sent: request id, method, path, status and duration (ms),
 * nothing else of the request (no headers, so no key; no body; no query string, whose filters can hold e-mail
 * addresses). The id is the client's X-Request-Id when it sent a usable one, else a new UUID, and is sent back
 * as X-Request-Id so that a client's report can be found.
 *
 * Written here rather than with pino-http, whose per-request child logger, serializers and wrapped response cost
 * 0.13 ms of CPU per REST write (docs/performance.md, «Requests and logs»); this line is the same.
 */
export function requestLog(req: Request, res: Response, next: NextFunction): void {
  const started = performance.now();
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', id);
  // the path as the client sent it (express shortens req.url inside a mounted router)
  const path = req.originalUrl.split('?', 1)[0];
  // probes (load balancers every second or two) would bury the requests that matter
  if (PROBES.has(path)) return next();
  let logged = false;
  const log = () => {
    if (logged) return;
    logged = true;
    const ms = Math.round(performance.now() - started);
    const line = { reqId: id, req: { method: req.method, path }, res: { status: res.statusCode }, ms };
    if (!res.writableFinished) requestLogger.warn(line, `${req.method} ${path} aborted after ${ms} ms`);
    else if (res.statusCode >= 500) requestLogger.error(line, `${req.method} ${path} ${res.statusCode} ${ms} ms`);
    else requestLogger.info(line, `${req.method} ${path} ${res.statusCode} ${ms} ms`);
  };
  res.once('finish', log);
  // a client gone before the answer was sent: the line says so
  res.once('close', log);
  next();
}
