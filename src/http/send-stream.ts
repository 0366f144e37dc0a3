import type { Response } from 'express';

/**
 * Answers written as they are read: a JSON array of pages (a bulk list) and text chunks (a zone file), each
 * waiting on the socket rather than buffering the whole answer, and each stopping its source when the client goes.
 */

/** how a streamed JSON array is wrapped: the text before its first item, and after its last (given the count) */
export interface ArrayWrapping {
  open: string;
  close: (count: number) => string;
}
export const BARE_ARRAY: ArrayWrapping = { open: '[', close: () => ']' };

/** Streams a JSON array page by page; the first page is fetched before the status is sent, so errors stay clean. */
export async function sendItems(
  res: Response,
  status: number,
  pages: AsyncIterable<readonly unknown[]>,
  wrapping = BARE_ARRAY,
): Promise<void> {
  const iterator = pages[Symbol.asyncIterator]();
  try {
    let next = await iterator.next();
    res.status(status).type('application/json');
    res.write(wrapping.open);
    let count = 0;
    let buffer = '';
    while (!next.done) {
      for (const item of next.value) {
        buffer += (count ? ',' : '') + JSON.stringify(item);
        count += 1;
        if (buffer.length > 64 * 1024) {
          // a client gone while the socket was full never drains it: waiting for 'drain' alone would hang here
          if (!res.write(buffer) && !res.destroyed) await drainedOrClosed(res);
          if (res.destroyed) return;
          buffer = '';
        }
      }
      next = await iterator.next();
    }
    res.end(buffer + wrapping.close(count));
  } finally {
    // a client gone mid-way: no further page is read
    await iterator.return?.();
  }
}

/** until the socket takes more, or the client is gone (one listener each, removed again) */
function drainedOrClosed(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Writes text chunks as they come, waiting on the socket; the first chunk is read before the status is sent. */
export async function sendChunks(res: Response, status: number, contentType: string, chunks: AsyncIterable<string>) {
  const iterator = chunks[Symbol.asyncIterator]();
  try {
    let next = await iterator.next();
    res.status(status).type(contentType);
    while (!next.done) {
      if (!res.write(next.value) && !res.destroyed) await drainedOrClosed(res);
      if (res.destroyed) return;
      next = await iterator.next();
    }
    res.end();
  } finally {
    // a client gone mid-way: the source stops (its cursor is closed, its connection returned)
    await iterator.return?.();
  }
}
