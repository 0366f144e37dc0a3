/**
 * A dnstap sender written with the service's Frame Streams encoders, as a server's dnstap output is: it connects
 * (unix socket or TCP), sends READY, waits for ACCEPT, sends START, the payloads, STOP, and waits for FINISH.
 * The tests hold it against libfstrm's receiver (fstrm_capture) and drive the collector with it.
 */
import net from 'node:net';
import { CONTROL, DNSTAP_CONTENT_TYPE, encodeControlFrame, encodeDataFrame, FrameReader } from '../../src/analytics/frame-streams';
import type { ControlFrame } from '../../src/analytics/frame-streams';

export type SenderTarget = { path: string } | { host: string; port: number };

export interface DnstapSender {
  send(payloads: Buffer[]): Promise<void>;
  /** STOP, then FINISH awaited and the connection closed */
  finish(): Promise<ControlFrame>;
  /** READY's answer */
  accepted: ControlFrame;
  destroy(): void;
}

export async function openDnstapSender(target: SenderTarget, contentTypes: string[] = [DNSTAP_CONTENT_TYPE]): Promise<DnstapSender> {
  const socket = 'path' in target ? net.connect(target.path) : net.connect(target.port, target.host);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  const reader = new FrameReader();
  const controls: ControlFrame[] = [];
  const waiters: ((frame: ControlFrame | undefined) => void)[] = [];
  socket.on('data', (chunk: Buffer) => {
    for (const frame of reader.push(chunk)) if (frame.kind === 'control') (waiters.shift() ?? ((f) => controls.push(f!)))(frame.control);
  });
  socket.on('close', () => waiters.splice(0).forEach((waiter) => waiter(undefined)));
  socket.on('error', () => undefined);
  const nextControl = () =>
    new Promise<ControlFrame>((resolve, reject) => {
      const ready = controls.shift();
      if (ready) return resolve(ready);
      waiters.push((frame) => (frame ? resolve(frame) : reject(new Error('the receiver closed the connection'))));
    });
  const write = (data: Buffer) =>
    new Promise<void>((resolve, reject) => socket.write(data, (error) => (error ? reject(error) : resolve())));
  await write(encodeControlFrame(CONTROL.READY, contentTypes));
  const accepted = await nextControl();
  if (accepted.type !== CONTROL.ACCEPT) throw new Error(`READY answered with control type ${accepted.type}`);
  await write(encodeControlFrame(CONTROL.START, [DNSTAP_CONTENT_TYPE]));
  return {
    accepted,
    send: (payloads) => write(Buffer.concat(payloads.map((payload) => encodeDataFrame(payload)))),
    finish: async () => {
      await write(encodeControlFrame(CONTROL.STOP));
      const finish = await nextControl();
      socket.end();
      return finish;
    },
    destroy: () => socket.destroy(),
  };
}
