/**
 * The Frame Streams implementation (src/analytics/frame-streams.ts) against libfstrm's own tools, from Debian:
 * a sender written with its encoders completes the bidirectional handshake with `fstrm_capture` (the reference
 * receiver), whose file `dnstap-ldns` reads back as the dnstap messages sent; and the collector's listener
 * (src/analytics/dnstap-listener.ts) completes it with `fstrm_replay` (the reference sender), over a unix socket
 * and over TCP, taking every payload of that file.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeDnstap, MESSAGE_TYPE, type DnstapReading } from '../../src/analytics/dnstap';
import { CONTROL } from '../../src/analytics/frame-streams';
import { listenDnstap, type DnstapConnection } from '../../src/analytics/dnstap-listener';
import { encodeMessage, FLAG } from '../../src/dns/wire/message';
import { freePort } from '../support/free-port';
import { openDnstapSender, type SenderTarget } from '../support/dnstap-sender';
import { waitFor } from '../support/wait-for';

const NAMES = Array.from({ length: 50 }, (_, i) => `host${i}.tools.example.`);
const payloads = NAMES.map((name, i) =>
  encodeDnstap({
    identity: 'sender-under-test',
    type: MESSAGE_TYPE.AUTH_RESPONSE,
    queryTimeSec: 1_800_000_000,
    responseTimeSec: 1_800_000_000,
    responseMessage: encodeMessage({ id: i, flags: FLAG.QR | FLAG.AA | (i % 5 === 0 ? 3 : 0), questions: [{ name, type: 1, klass: 1 }] }),
  }),
);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-fstrm-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** fstrm_capture receiving into `file`, once it listens */
async function startCapture(target: SenderTarget, file: string): Promise<{ stop(): Promise<void>; output(): string }> {
  const where = 'path' in target ? ['-u', target.path] : ['-a', target.host, '-p', String(target.port)];
  let output = '';
  const child: ChildProcess = spawn('fstrm_capture', ['-t', 'protobuf:dnstap.Dnstap', ...where, '-w', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  // it listens once it has opened its output file
  await waitFor(`fstrm_capture listening (${output})`, () => (existsSync(file) ? true : undefined));
  return {
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function captureRoundTrip(target: SenderTarget, file: string): Promise<void> {
  const capture = await startCapture(target, file);
  try {
    const sender = await waitFor('a connection to fstrm_capture', () => openDnstapSender(target));
    expect(sender.accepted.type).toBe(CONTROL.ACCEPT);
    await sender.send(payloads);
    const finish = await sender.finish();
    expect(finish.type).toBe(CONTROL.FINISH);
  } finally {
    await capture.stop();
  }
  expect(statSync(file).size).toBeGreaterThan(0);
  // dnstap-ldns's quiet format: one line a message, its type (AR: AUTH_RESPONSE) and its question, the name quoted
  const lines = execFileSync('dnstap-ldns', ['-q', '-r', file], { encoding: 'utf8' }).trim().split('\n');
  expect(lines).toHaveLength(NAMES.length);
  lines.forEach((line, i) => {
    expect(line).toContain(' AR ');
    expect(line).toContain(`"${NAMES[i]}" IN A`);
  });
}

it('a sender on these encoders completes the handshake with fstrm_capture over a unix socket; dnstap-ldns reads back what was sent', async () => {
  await captureRoundTrip({ path: path.join(dir, 'capture.sock') }, path.join(dir, 'unix.fstrm'));
});

it('… and over TCP', async () => {
  await captureRoundTrip({ host: '127.0.0.1', port: await freePort() }, path.join(dir, 'tcp.fstrm'));
});

describe('the collector’s listener receives from fstrm_replay', () => {
  const file = () => path.join(dir, 'unix.fstrm');

  async function replayInto(target: SenderTarget & { listen: { path: string } | { host: string; port: number } }) {
    const readings: DnstapReading[] = [];
    const closed: { connection: DnstapConnection; error?: Error }[] = [];
    const listener = await listenDnstap(target.listen, {
      connected: () => undefined,
      frame: (_connection, reading) => readings.push(reading),
      closed: (connection, error) => closed.push({ connection, error }),
    });
    try {
      const where = 'path' in target.listen ? ['-u', target.listen.path] : ['-a', target.listen.host, '-p', String(listener.port)];
      // fstrm_replay exits 0 only once its STOP was answered with FINISH (the bidirectional handshake's end)
      const replay = spawn('fstrm_replay', ['-t', 'protobuf:dnstap.Dnstap', '-r', file(), ...where], { stdio: 'ignore' });
      const code = await new Promise<number | null>((resolve) => replay.on('exit', (exitCode) => resolve(exitCode)));
      expect(code).toBe(0);
      await waitFor('the connection closed', () => (closed.length ? true : undefined));
    } finally {
      await listener.close();
    }
    expect(closed).toEqual([{ connection: expect.objectContaining({ identity: 'sender-under-test' }), error: undefined }]);
    expect(readings.map((reading) => reading.kind === 'answer' && [reading.answer.name, reading.answer.rcode])).toEqual(
      NAMES.map((name, i) => [name, i % 5 === 0 ? 3 : 0]),
    );
  }

  it('over a unix socket', async () => {
    const socketPath = path.join(dir, 'collector.sock');
    await replayInto({ path: socketPath, listen: { path: socketPath } });
    // the socket's file goes with the listener
    expect(existsSync(socketPath)).toBe(false);
  });

  it('over TCP', async () => {
    await replayInto({ host: '127.0.0.1', port: 0, listen: { host: '127.0.0.1', port: 0 } });
  });
});
