import type { Response } from 'express';
import { drainedOrClosed } from '../drained-or-closed';

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

/**
 * Writes chunks (text, or text already encoded as UTF-8: Utf8Chunk) as they come, waiting on the socket; the first
 * chunk is read before the status is sent.
 */
export async function sendChunks(res: Response, status: number, contentType: string, chunks: AsyncIterable<string | Uint8Array>) {
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

/**
 * Text gathered as UTF-8 in one buffer, a piece at a time: a chunk of a streamed answer made of many small pieces
 * (a page of the PowerDNS API's zone list is thousands of zones' JSON). The same pieces joined with `+` into one
 * string make a rope of thousands of parts, which node's http layer measures (Buffer.byteLength) and the socket
 * copies again, each flattening it: most of the list's CPU before (bench/FINDINGS.md, «The PowerDNS API's zone
 * list»). Here each piece is encoded once, into the buffer the socket writes.
 */
export class Utf8Chunk {
  private buffer: Buffer;
  private length = 0;

  /** `expectedBytes`: the chunk's likely size, so that it is seldom grown */
  constructor(expectedBytes: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(expectedBytes, 64));
  }

  add(text: string): void {
    // a UTF-16 code unit is at most 3 octets of UTF-8 (a surrogate pair, two units, is 4)
    const most = text.length * 3;
    if (this.length + most > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + most));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    this.length += this.buffer.write(text, this.length);
  }

  /** the text gathered, as UTF-8 */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}
