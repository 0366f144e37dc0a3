import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { errorBody } from './error-body';
import { whenClosed } from './response-closed';

/**
 * A request body larger than this is heavy: what it becomes while it runs (a zone file's parsed records, a
 * change set, the JSON parsed) is some 25 to 30 times its size (bench/RESULTS-hostile.md), so sixteen 1 MB
 * imports at once took the process from 230 to 665 MB.
 */
export const HEAVY_BODY_BYTES = 64 * 1024;
/** how many heavy requests may wait for a turn; beyond them 503 with Retry-After (each waits holding little) */
const HEAVY_QUEUE = 1000;

/**
 * Process-wide turns for the requests that hold tens of MB while they run, whoever sends them (the admin key
 * included, which the per-user turns of RATE_LIMIT_CONCURRENCY do not count): a large body (taken before the
 * body is read, so a waiting one stays in the socket's buffers), a GraphQL operation of high cost or that
 * parses or prints a zone file, a REST answer holding a zone whole. At most HEAVY_REQUESTS_AT_ONCE run at once,
 * the others wait their turn in order; light requests (nearly all: a record written, a page read) never wait.
 * Bounding what runs at once, not only what one request may send, is what keeps the process's memory bounded
 * on hostile input in general (docs/performance.md, «Memory under hostile input»).
 */
export class HeavyRequests {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly holding = new WeakSet<Response>();

  constructor(private readonly atOnce: number) {}

  /**
   * true when the request holds a turn (given back when its response closes), false when the queue is full; a
   * promise of either only while it waits for its turn. A turn free now is given without a promise: awaited in
   * Apollo's `didResolveOperation` hook (graphql/limits.ts), even an already resolved promise kept every heavy
   * answer alive through young-generation collections until a mark-compact (bench/FINDINGS.md, «What kept every
   * request's objects alive through young-generation collections»).
   */
  take(res: Response): boolean | Promise<boolean> {
    if (this.atOnce === 0 || this.holding.has(res)) return true;
    if (this.running < this.atOnce) return this.hold(res);
    if (this.waiting.length >= HEAVY_QUEUE) return false;
    return new Promise((resolve) => this.waiting.push(() => resolve(this.hold(res))));
  }

  /** runs `admitted` with the request's turn: at once when one is free or the queue is full, else when it comes */
  whenTaken(res: Response, admitted: (turn: boolean) => void): void {
    const turn = this.take(res);
    if (typeof turn === 'boolean') admitted(turn);
    else void turn.then(admitted);
  }

  private hold(res: Response): boolean {
    // a client gone while it waited takes no turn (its 'close' has come and gone)
    if (res.destroyed || res.writableFinished) {
      this.next();
      return false;
    }
    this.running += 1;
    this.holding.add(res);
    whenClosed(res, () => {
      this.running -= 1;
      this.next();
    });
    return true;
  }

  private next(): void {
    while (this.running < this.atOnce && this.waiting.length) this.waiting.shift()!();
  }
}

/** the answer to a heavy request that found the queue full */
export function refuseBusy(res: Response): void {
  if (res.headersSent || res.destroyed) return;
  res.set('Retry-After', '1').status(503).json(errorBody('SERVER_BUSY'));
}

/** a request whose body is (or may be, chunked) over HEAVY_BODY_BYTES takes a turn before its body is read */
export function heavyBodies(heavy: HeavyRequests): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const length = Number(req.get('content-length') ?? (req.get('transfer-encoding') ? Infinity : 0));
    if (!(length > HEAVY_BODY_BYTES)) return next();
    heavy.whenTaken(res, (turn) => {
      if (turn) return next();
      if (!res.destroyed) refuseBusy(res);
    });
  };
}
