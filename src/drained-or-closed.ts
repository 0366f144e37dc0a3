/** a stream a writer waits on: a socket, an HTTP response */
interface Drainable {
  on(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

/**
 * Until the stream takes more, or its peer is gone (one listener each, removed again): a writer that waited for
 * 'drain' alone would wait for good on a client gone mid-way, and hold what it holds (a transaction, a page).
 */
export function drainedOrClosed(stream: Drainable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}
