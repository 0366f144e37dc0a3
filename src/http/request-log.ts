import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import { logger } from '../logger';

const PROBES = new Set(['/health', '/ready', '/metrics']);

/** a request id a client or a proxy may set: short, and safe to put in a log line and a header */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** the request's path as the client sent it (express shortens req.url inside a mounted router), no query */
const pathOf = (req: IncomingMessage) => ((req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '').split('?')[0];

/**
 * One log line per HTTP request when its answer is sent: request id, method, path, status and duration (ms),
 * nothing else of the request (no headers, so no key; no body). The id is the client's X-Request-Id when it
 * sent a usable one, else a new UUID, and is sent back as X-Request-Id so that a client's report can be found.
 */
export const requestLog = pinoHttp({
  logger,
  genReqId(req: IncomingMessage, res: ServerResponse) {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', id);
    return id;
  },
  // the path without its query string: filters can hold e-mail addresses
  serializers: {
    req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, path: req.url.split('?')[0] }),
    res: (res: { statusCode: number }) => ({ status: res.statusCode }),
  },
  customSuccessMessage: (req: IncomingMessage, res: ServerResponse, ms: number) => `${req.method} ${pathOf(req)} ${res.statusCode} ${Math.round(ms)} ms`,
  customErrorMessage: (req: IncomingMessage, res: ServerResponse) => `${req.method} ${pathOf(req)} ${res.statusCode}`,
  customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
  // a request's own log calls (req.log) are not used: the service logs through `logger`
  quietReqLogger: true,
  // probes (load balancers every second or two) would bury the requests that matter
  autoLogging: { ignore: (req: IncomingMessage) => PROBES.has(pathOf(req)) },
  customAttributeKeys: { responseTime: 'ms' },
});
