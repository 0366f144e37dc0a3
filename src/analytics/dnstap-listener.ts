/**
 * The collector's socket: dnstap senders (BIND, Knot, NSD, dnsdist) connect over a unix socket or TCP and speak
 * Frame Streams' bidirectional handshake (frame-streams.ts); each data frame is read as dnstap (dnstap.ts) and
 * handed to the sink with the connection it came on. A connection that breaks the framing or offers another
 * content type is closed and told to the sink; the others go on.
 */
import { existsSync, lstatSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import { DNSTAP_CONTENT_TYPE, FrameReader, FrameStreamsError, FrameStreamsReceiver } from './frame-streams';
import { readDnstap, type DnstapReading } from './dnstap';

/** where the collector listens: a unix socket's path, or an address and port */
export type DnstapListen = { path: string } | { host: string; port: number };

export function describeListen(listen: DnstapListen): string {
  return 'path' in listen
    ? `unix:${listen.path}`
    : listen.host.includes(':')
      ? `[${listen.host}]:${listen.port}`
      : `${listen.host}:${listen.port}`;
}

/** one sender's connection, as the sink sees it */
export interface DnstapConnection {
  id: number;
  /** the peer: its address for TCP, the socket's path for a unix socket (which names no peer) */
  peer: string;
  /** when it connected (ms since the epoch) */
  since: number;
  /** the identity its payloads carry, once one has */
  identity: string | undefined;
}

export interface DnstapSink {
  connected(connection: DnstapConnection): void;
  /** one data frame, read */
  frame(connection: DnstapConnection, reading: DnstapReading): void;
  /** the connection ended: by the sender (after STOP, or not), or for an error in its stream */
  closed(connection: DnstapConnection, error?: Error): void;
}

export interface DnstapListener {
  /** where it listens, as told in logs (a TCP port 0 becomes the port taken) */
  address: string;
  port: number | undefined;
  connections(): DnstapConnection[];
  /** stops accepting, ends the connections, removes a unix socket's file */
  close(): Promise<void>;
}

/**
 * A unix socket's file left by a process that ended without removing it is removed; one another process listens
 * on is not (the listen then fails as a busy port does).
 */
async function clearStaleSocket(path: string): Promise<void> {
  if (!existsSync(path) || !lstatSync(path).isSocket()) return;
  const live = await new Promise<boolean>((resolve) => {
    const probe = net.connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (!live) unlinkSync(path);
}

export async function listenDnstap(listen: DnstapListen, sink: DnstapSink): Promise<DnstapListener> {
  const open = new Set<{ socket: net.Socket; connection: DnstapConnection }>();
  let next = 1;
  const server = net.createServer((socket) => {
    const connection: DnstapConnection = {
      id: next++,
      peer: 'path' in listen ? `unix:${listen.path}` : (socket.remoteAddress ?? 'unknown'),
      since: Date.now(),
      identity: undefined,
    };
    const entry = { socket, connection };
    open.add(entry);
    sink.connected(connection);
    const reader = new FrameReader();
    const receiver = new FrameStreamsReceiver(DNSTAP_CONTENT_TYPE);
    let failure: Error | undefined;
    socket.on('data', (chunk: Buffer) => {
      if (failure) return;
      try {
        for (const frame of reader.push(chunk)) {
          const step = receiver.step(frame);
          if (step.reply) socket.write(step.reply);
          if (step.payload) {
            const reading = readDnstap(step.payload);
            const identity = reading.kind === 'answer' ? reading.answer.identity : reading.identity;
            if (identity !== undefined) connection.identity = identity;
            sink.frame(connection, reading);
          }
          if (step.finished) {
            socket.end();
            return;
          }
        }
      } catch (error) {
        failure = error instanceof FrameStreamsError ? error : new FrameStreamsError((error as Error).message);
        socket.destroy();
      }
    });
    socket.on('error', (error) => (failure ??= error));
    socket.on('close', () => {
      open.delete(entry);
      sink.closed(connection, failure);
    });
  });
  if ('path' in listen) await clearStaleSocket(listen.path);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if ('path' in listen) server.listen(listen.path, () => resolve());
    else server.listen(listen.port, listen.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : undefined;
  return {
    address: 'path' in listen ? describeListen(listen) : describeListen({ host: listen.host, port: port ?? listen.port }),
    port,
    connections: () => [...open].map(({ connection }) => connection),
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const { socket } of open) socket.destroy();
      await closed;
    },
  };
}
