import type { Response } from 'express';

const ON_CLOSE = Symbol('work when the response closes');

type WithCloseWork = Response & { [ON_CLOSE]?: (() => void)[] };

/**
 * Runs `work` when the response closes ('close': after the answer was sent, or when the client went first), with
 * one listener per response for every layer that asks. With a second listener of the same event, every request's
 * objects outlived young-generation collections until the next full one; `--no-allocation-site-pretenuring` ended
 * it, so V8 pretenures the listener array (made where every emitter in the process makes its own) and each
 * request's array, old from birth, held its listeners, their request and its answer (measured: bench/FINDINGS.md,
 * «What kept every request's objects alive through young-generation collections»).
 */
export function whenClosed(res: Response, work: () => void): void {
  // a client that went while the request was still being authenticated has closed the response already: its
  // 'close' will not come again, so the work is done now (a user's turn among its requests at once, taken after
  // those awaits, was otherwise never given back, and four such aborts held every later request of the user)
  if (res.closed) {
    work();
    return;
  }
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
