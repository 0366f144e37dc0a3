import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { requestLogger } from '../logger';
import { httpRequestDuration } from '../metrics';
import { whenClosed } from './response-closed';

const PROBES = new Set(['/health', '/ready', '/metrics']);

/** a request id a client or a proxy may set: short, and safe to put in a log line and a header */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * One log line per HTTP request when its answer is sent: request id, method, path, status and duration (ms),
 * nothing else of the request (no headers, so no key; no body; no query string, whose filters can hold e-mail
 * addresses). The id is the client's X-Request-Id when it sent a usable one, else a new UUID, and is sent back
 * as X-Request-Id so that a client's report can be found. An answer sent is also observed in the request
 * histogram (`zonekeeper_http_request_duration_seconds`, probes included), from the same start.
 *
 * Written here rather than with pino-http, whose per-request child logger, serializers and wrapped response cost
 * 0.13 ms of CPU per REST write (docs/performance.md, «Requests and logs»); this line is the same. The line and
 * the histogram share one start and one listener per event: a layer, a timer and a listener of their own each
 * were CPU on every request for nothing more (bench/FINDINGS.md).
 */
export function requestLog(req: Request, res: Response, next: NextFunction): void {
  const started = performance.now();
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', id);
  // the path as the client sent it (express shortens req.url inside a mounted router)
  const url = req.originalUrl;
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  // probes (load balancers every second or two) would bury the requests that matter
  const logged = !PROBES.has(path);
  const end = () => {
    const elapsed = performance.now() - started;
    const finished = res.writableFinished;
    if (finished) {
      // the route's pattern, not the path: a label per zone would grow the series without bound
      const route = req.route?.path ?? req.baseUrl ?? 'unmatched';
      httpRequestDuration.observe({ method: req.method, route, status: String(res.statusCode) }, elapsed / 1000);
    }
    if (!logged) return;
    const ms = Math.round(elapsed);
    const line = { reqId: id, req: { method: req.method, path }, res: { status: res.statusCode }, ms };
    if (!finished) requestLogger.warn(line, `${req.method} ${path} aborted after ${ms} ms`);
    else if (res.statusCode >= 500) requestLogger.error(line, `${req.method} ${path} ${res.statusCode} ${ms} ms`);
    else requestLogger.info(line, `${req.method} ${path} ${res.statusCode} ${ms} ms`);
  };
  // 'close' follows 'finish' on every answer sent (a tick later), and comes alone when the client went first
  // (the line says so). Not 'finish' as well: a listener beside Node's own 'finish' listener kept every request
  // alive through young-generation collections, as a second 'close' listener does (response-closed.ts)
  whenClosed(res, end);
  next();
}
