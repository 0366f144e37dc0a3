/**
 * Test support: the DNS UPDATE clients from Debian's packages, run as child processes (never synchronously:
 * the service under test runs in this process). bind9-dnsutils (nsupdate), knot-dnsutils (knsupdate),
 * python3-dnspython and python3-certbot-dns-rfc2136 with Debian's own /usr/bin/python3.
 */
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';
import { findBinary } from '../propagation/knot';

export interface ClientRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runClient(bin: string, args: string[], stdin: string, timeoutMs = 15_000): Promise<ClientRun> {
  return new Promise((resolve, reject) => {
    const child = execFile(bin, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as any).code === 'number' ? (error as any).code : -1) : 0;
      if (error && code === -1 && !stdout && !stderr) return reject(error);
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
    child.stdin?.end(stdin);
  });
}

/** the TSIG key as `-y` takes it */
export interface KeyArg {
  algorithm: string;
  name: string;
  secret: string;
}
const yArg = (key: KeyArg) => `${key.algorithm}:${key.name}:${key.secret}`;

/** BIND's nsupdate; `tcp` sends over TCP (-v); the script's `server` line is added here */
/** `debug`: nsupdate -d, which prints the answer (its Extended DNS Error among it) */
export function nsupdate(
  port: number,
  key: KeyArg | undefined,
  lines: string[],
  options: { tcp?: boolean; debug?: boolean } = {},
): Promise<ClientRun> {
  const args = [...(key ? ['-y', yArg(key)] : []), ...(options.tcp ? ['-v'] : []), ...(options.debug ? ['-d'] : [])];
  return runClient(findBinary('nsupdate'), args, [`server 127.0.0.1 ${port}`, ...lines, ''].join('\n'));
}

/** Knot's knsupdate */
export function knsupdate(port: number, key: KeyArg, lines: string[]): Promise<ClientRun> {
  return runClient(findBinary('knsupdate'), ['-y', yArg(key)], [`server 127.0.0.1 ${port}`, ...lines, ''].join('\n'));
}

/** Debian's python3 (not a pyenv one on PATH): the one python3-dnspython and the certbot plugin are installed for */
export function python(script: string, args: string[]): Promise<ClientRun> {
  return runClient('/usr/bin/python3', ['-c', script, ...args], '');
}

/** an UPDATE message (opcode 5) built with dns-packet: the question is the zone section, `updates` the update section */
export function updateMessage(zone: string, updates: any[]): Buffer {
  return dnsPacket.encode({
    id: 777,
    type: 'query',
    flags: 5 << 11,
    questions: [{ name: zone, type: 'SOA', class: 'IN' }],
    authorities: updates,
  } as any);
}

/** sends one message over UDP and returns the answer, or undefined after 2 s of silence */
export async function sendUdp(port: number, message: Buffer, host = '127.0.0.1'): Promise<Buffer | undefined> {
  const socket = dgram.createSocket('udp4');
  try {
    return await new Promise<Buffer | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), 2000);
      socket.on('message', (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      socket.send(message, port, host);
    });
  } finally {
    socket.close();
  }
}

export const rcodeOf = (answer: Buffer | undefined) => (answer ? answer.readUInt16BE(2) & 0xf : undefined);
