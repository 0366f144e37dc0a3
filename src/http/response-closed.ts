import type { Response } from 'express';

const ON_CLOSE = Symbol('work when the response closes');

type WithCloseWork = Response & { [ON_CLOSE]?: (() => void)[] };

/**
 * Runs `work` when the response closes ('close': after the answer was sent, or when the client went first), with
 * one listener per response for every layer that asks. A second listener of the same event turns the emitter's
 * listener into an array made where every emitter in the process makes its own, and V8 allocates that site's
 * arrays in the old generation once enough of them live long (allocation-site pretenuring): each request's
 * array then kept its listeners' request and answer alive through young-generation collections until the next
 * full one (bench/FINDINGS.md, «The nested answer's tail: what kept every answer alive»).
 */
export function whenClosed(res: Response, work: () => void): void {
  const response = res as WithCloseWork;
  const queued = response[ON_CLOSE];
  if (queued) {
    queued.push(work);
    return;
  }
  response[ON_CLOSE] = [work];
  res.once('close', () => {
    for (const each of response[ON_CLOSE]!) each();
  });
}
