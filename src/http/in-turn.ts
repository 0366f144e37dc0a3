import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Handlers run one after the other as one layer of a route, each going on to the next as it would in the
 * route itself: `next()` runs the following handler (the route's `next` after the last), `next(value)` (an
 * error, or `'route'`/`'router'`) goes to the route's `next` as it is, a handler that throws or whose promise
 * rejects hands its error on, as Express's layers do. A route of five handlers was five of Express's layers
 * passed on every request (its dispatch, method test, and promise check each), the API's hottest paths
 * among them (bench/FINDINGS.md).
 */
export function inTurn(handlers: readonly RequestHandler[]): RequestHandler {
  if (handlers.length === 1) return handlers[0];
  return (req: Request, res: Response, next: NextFunction) => {
    let at = 0;
    const step = (error?: unknown): void => {
      if (error) return next(error);
      const handler = handlers[at];
      if (!handler) return next();
      at += 1;
      try {
        const ran: unknown = handler(req, res, step);
        // as Express's layer: a rejection is the route's error, one without a reason too
        if (ran && typeof (ran as PromiseLike<unknown>).then === 'function')
          (ran as PromiseLike<unknown>).then(undefined, (thrown: unknown) => next(thrown || new Error('Rejected promise')));
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}
