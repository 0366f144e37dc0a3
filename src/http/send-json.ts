import type { Response } from 'express';

/**
 * `res.status(status).json(value)` for the common case, written straight: the same status, `Content-Type:
 * application/json; charset=utf-8`, `Content-Length` and body. Express's `json` and `send` read three settings,
 * parse and format the content type twice and look its charset up on every answer; on a write's answer that
 * was CPU for the same header each time (bench/FINDINGS.md). Anything else Express handles specially (a HEAD
 * request, a status without a body, a content type set before, a value that is no JSON text, ETags made by
 * Express, JSON settings) goes to Express
 * itself.
 */
export function sendJson(res: Response, status: number, value: unknown): void {
  const text =
    status !== 204 && status !== 304 && res.req.method !== 'HEAD' && !res.hasHeader('content-type') ? JSON.stringify(value) : undefined;
  const { app } = res;
  if (
    typeof text !== 'string' ||
    typeof app.get('etag fn') === 'function' ||
    app.get('json replacer') ||
    app.get('json spaces') ||
    app.get('json escape')
  ) {
    res.status(status).json(value);
    return;
  }
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
