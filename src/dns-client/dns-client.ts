/**
 * A small DNS client for the worker: SOA queries to the secondaries (status) and NOTIFY (RFC 1996) over UDP,
 * TSIG-signed when a key is set (RFC 8945; the answer's TSIG is verified against our request MAC), and plain
 * queries over UDP that go again over TCP when the answer is truncated (RFC 7766 §5: the parent's DS).
 */
import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import { hostPortName, type HostPort } from '../config/settings';
import type { TsigKey } from '../dns/wire/tsig';
import { SOA, type SOAValue } from '../dns/record-types/soa';
import { A } from '../dns/record-types/a';
import { AAAA } from '../dns/record-types/aaaa';
import type { RecordTypeDefinition } from '../dns/record-types/record-type';
import {
  CLASS,
  EDNS_DO,
  encodeMessage,
  FLAG,
  OPCODE,
  OutgoingMessage,
  readRdata,
  readWireMessage,
  signMessage,
  verifyMessage,
  WireMessage,
} from '../dns/wire';

export const RCODE_NAMES: Record<number, string> = {
  0: 'NOERROR',
  1: 'FORMERR',
  2: 'SERVFAIL',
  3: 'NXDOMAIN',
  4: 'NOTIMP',
  5: 'REFUSED',
  9: 'NOTAUTH',
  10: 'NOTZONE',
};

/** an answer: its octets, its sections as framed (RDATA read with `readRdata`) and whether its TSIG held */
export interface DnsAnswer {
  rcode: number;
  raw: Buffer;
  message: WireMessage;
  tsig: 'none' | 'ok' | 'bad';
}

export { hostPortName as serverName } from '../config/settings';

/** sends one request over UDP and waits for the answer with the same ID (or rejects after timeoutMs) */
export function exchange(
  server: HostPort,
  request: Omit<OutgoingMessage, 'id'>,
  options: { key?: TsigKey; timeoutMs?: number } = {},
): Promise<DnsAnswer> {
  const id = randomInt(0, 65536);
  let message = encodeMessage({ ...request, id });
  let requestMac: Buffer | undefined;
  if (options.key) {
    const signed = signMessage(message, options.key);
    message = signed.message;
    requestMac = signed.mac;
  }
  const socket = dgram.createSocket(net.isIPv6(server.host) ? 'udp6' : 'udp4');
  return new Promise<DnsAnswer>((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no answer within ${options.timeoutMs ?? 1000} ms`)), options.timeoutMs ?? 1000);
    const finish = (error?: Error, answer?: DnsAnswer) => {
      clearTimeout(timer);
      socket.close();
      if (error) reject(error);
      else resolve(answer!);
    };
    socket.on('error', (error) => finish(error));
    socket.on('message', (raw) => {
      if (raw.length < 12 || raw.readUInt16BE(0) !== id) return;
      let decoded: WireMessage;
      try {
        decoded = readWireMessage(raw);
      } catch (error) {
        return finish(new Error(`malformed answer: ${(error as Error).message}`));
      }
      let tsig: DnsAnswer['tsig'] = 'none';
      if (requestMac) tsig = verifyMessage(raw, options.key, { requestMac }).status === 'ok' ? 'ok' : 'bad';
      finish(undefined, { rcode: raw.readUInt16BE(2) & 0xf, raw, message: decoded, tsig });
    });
    socket.send(message, server.port, server.host, (error) => {
      if (error) finish(error);
    });
  });
}

/** sends one request over TCP (RFC 7766 §8: two-octet length prefix) and waits for its answer */
export function exchangeTcp(
  server: HostPort,
  request: Omit<OutgoingMessage, 'id'>,
  options: { timeoutMs?: number } = {},
): Promise<DnsAnswer> {
  const id = randomInt(0, 65536);
  const message = encodeMessage({ ...request, id });
  const timeoutMs = options.timeoutMs ?? 1000;
  return new Promise<DnsAnswer>((resolve, reject) => {
    const socket = net.connect({ host: server.host, port: server.port });
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => finish(new Error(`no answer over TCP within ${timeoutMs} ms`)), timeoutMs);
    const finish = (error?: Error, answer?: DnsAnswer) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(answer!);
    };
    socket.on('error', (error) => finish(error));
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(message.length);
      socket.write(Buffer.concat([length, message]));
    });
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 2 || received.length < 2 + received.readUInt16BE(0)) return;
      const raw = received.subarray(2, 2 + received.readUInt16BE(0));
      if (raw.length < 12 || raw.readUInt16BE(0) !== id) return finish(new Error('answer over TCP with another ID'));
      try {
        finish(undefined, { rcode: raw.readUInt16BE(2) & 0xf, raw, message: readWireMessage(raw), tsig: 'none' });
      } catch (error) {
        finish(new Error(`malformed answer: ${(error as Error).message}`));
      }
    });
    socket.on('close', () => finish(new Error('connection closed before the answer')));
  });
}

/**
 * One question (no recursion asked: the servers are the zone's authorities), over UDP; a truncated answer
 * (TC) is asked again over TCP (RFC 7766 §5). Each exchange within `timeoutMs`. `dnssec`: with EDNS and the DO
 * bit (RFC 3225 §3), so that the server adds the RRSIGs of what it answers (RFC 4035 §3.1.1).
 */
export async function query(
  server: HostPort,
  name: string,
  type: number,
  timeoutMs = 2000,
  options: { dnssec?: boolean; tcp?: boolean } = {},
): Promise<DnsAnswer & { transport: 'udp' | 'tcp' }> {
  const request = {
    flags: OPCODE.QUERY << 11,
    questions: [{ name, type, klass: CLASS.IN }],
    ...(options.dnssec ? { edns: { udpPayloadSize: 1232, extendedRcode: 0, version: 0, flags: EDNS_DO, options: [] } } : {}),
  };
  // `tcp`: over TCP from the start, where an answer forged by someone off the path must not be taken (RFC 7766 §1)
  if (options.tcp) return { ...(await exchangeTcp(server, request, { timeoutMs })), transport: 'tcp' };
  const answer = await exchange(server, request, { timeoutMs });
  if (!(answer.message.flags & FLAG.TC)) return { ...answer, transport: 'udp' };
  return { ...(await exchangeTcp(server, request, { timeoutMs })), transport: 'tcp' };
}

export type SoaResult = { ok: true; serial: number } | { ok: false; reason: string };

/** the SOA serial a server serves for a zone */
export async function querySoaSerial(server: HostPort, zone: string, timeoutMs = 1000): Promise<SoaResult> {
  try {
    const answer = await exchange(
      server,
      { flags: OPCODE.QUERY << 11, questions: [{ name: zone, type: SOA.code, klass: CLASS.IN }] },
      { timeoutMs },
    );
    if (answer.rcode !== 0) return { ok: false, reason: `answered ${RCODE_NAMES[answer.rcode] ?? `RCODE ${answer.rcode}`} to SOA ${zone}` };
    const soa = answer.message.answers.find((r) => r.type === SOA.code && r.name.toLowerCase().replace(/\.$/, '') === zone);
    if (!soa) return { ok: false, reason: `no SOA for ${zone} in the answer (not authoritative for the zone yet?)` };
    return { ok: true, serial: readRdata(answer.raw, soa, SOA).serial };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

/** an SOA's fields (the record type's) with the TTL it is served at, as NOTIFY carries it (RFC 1996 §3.7) */
export type SoaData = SOAValue & { ttl: number };

/**
 * RFC 1996 §3: NOTIFY, opcode 4, AA, the zone's SOA in the question and (as a hint, §3.7) in the answer. A failure
 * says whether the server answered (an error RCODE: it does not hold the zone yet, say) or not at all.
 */
export async function sendNotify(
  server: HostPort,
  zone: string,
  soa: SoaData,
  key: TsigKey | undefined,
  timeoutMs = 1000,
): Promise<{ ok: true } | { ok: false; reason: string; answered: boolean }> {
  const { ttl, ...data } = soa;
  try {
    const answer = await exchange(
      server,
      {
        flags: (OPCODE.NOTIFY << 11) | FLAG.AA,
        questions: [{ name: zone, type: SOA.code, klass: CLASS.IN }],
        answers: [{ name: zone, type: SOA.code, klass: CLASS.IN, ttl, rdata: { definition: SOA, value: data } }],
      },
      { key, timeoutMs },
    );
    if (answer.rcode !== 0)
      return { ok: false, reason: `NOTIFY answered ${RCODE_NAMES[answer.rcode] ?? `RCODE ${answer.rcode}`}`, answered: true };
    if (key && answer.tsig !== 'ok') return { ok: false, reason: 'NOTIFY answer has no valid TSIG', answered: true };
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: `NOTIFY: ${(error as Error).message}`, answered: false };
  }
}

/** one type's addresses of a name as a resolver answered, or why there are none to take */
export type AddressAnswer =
  { ok: true; addresses: string[]; ttl: number | undefined; authenticated: boolean } | { ok: false; reason: string };

/**
 * A name's A or AAAA through a resolver (ALIAS flattening, docs/templates-and-alias.md): recursion desired
 * (RFC 1035 §4.1.1), DO set so a validating resolver says whether it validated (AD, RFC 4035 §3.2.3;
 * RFC 6840 §5.7). The addresses are the answer's records of the type asked (a CNAME chain is followed by the
 * resolver); the TTL is the smallest of the answer's records, CNAMEs included. NOERROR with no address
 * (NODATA) is an empty list; NXDOMAIN, SERVFAIL, other RCODEs and no answer are failures, with the reason.
 */
export async function resolveAddresses(server: HostPort, name: string, type: 'A' | 'AAAA', timeoutMs = 2000): Promise<AddressAnswer> {
  const definition = type === 'A' ? A : AAAA;
  const request = {
    flags: (OPCODE.QUERY << 11) | FLAG.RD,
    questions: [{ name, type: definition.code, klass: CLASS.IN }],
    edns: { udpPayloadSize: 1232, extendedRcode: 0, version: 0, flags: EDNS_DO, options: [] },
  };
  try {
    let answer = await exchange(server, request, { timeoutMs });
    if (answer.message.flags & FLAG.TC) answer = await exchangeTcp(server, request, { timeoutMs });
    if (answer.rcode !== 0)
      return {
        ok: false,
        reason: `${type} ${name}: ${hostPortName(server)} answered ${RCODE_NAMES[answer.rcode] ?? `RCODE ${answer.rcode}`}`,
      };
    const records = answer.message.answers;
    const addresses = records
      .filter((r) => r.type === definition.code)
      .map((r) => definition.format(readRdata(answer.raw, r, definition) as never));
    const ttl = records.length ? Math.min(...records.map((r) => r.ttl)) : undefined;
    return { ok: true, addresses: [...new Set(addresses)].sort(), ttl, authenticated: (answer.message.flags & FLAG.AD) !== 0 };
  } catch (error) {
    return { ok: false, reason: `${type} ${name}: ${hostPortName(server)}: ${(error as Error).message}` };
  }
}

/**
 * RFC 9859 §4.2: a generalised NOTIFY, telling a parent's endpoint that the child's CDS (and CDNSKEY) changed:
 * opcode NOTIFY, the question the child's name with type CDS, nothing else. The endpoint answers NOERROR with
 * the question echoed (RFC 1996 §4.7); anything else is its refusal, said with its RCODE.
 */
export async function sendCdsNotify(
  server: HostPort,
  zone: string,
  timeoutMs = 1000,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  try {
    const answer = await exchange(
      server,
      { flags: OPCODE.NOTIFY << 11, questions: [{ name: `${zone.replace(/\.$/, '')}.`, type: CDS_TYPE_CODE, klass: CLASS.IN }] },
      { timeoutMs },
    );
    if (answer.rcode !== 0) return { ok: false, reason: `NOTIFY(CDS) answered ${RCODE_NAMES[answer.rcode] ?? `RCODE ${answer.rcode}`}` };
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: `NOTIFY(CDS): ${(error as Error).message}` };
  }
}

/** CDS (RFC 7344 §3.1): the type a NOTIFY for the child's key changes names (RFC 9859 §4.2: it covers CDNSKEY) */
const CDS_TYPE_CODE = 59;

/** the records of `type` at `name` a server answers with authority, RDATA read by `definition`; why not, else */
export async function authoritativeRecords<V>(
  server: HostPort,
  name: string,
  definition: RecordTypeDefinition<V>,
  timeoutMs = 2000,
  options: { tcp?: boolean } = {},
): Promise<{ ok: true; values: V[]; soaOwner?: string } | { ok: false; reason: string }> {
  try {
    const answer = await query(server, `${name.replace(/\.$/, '')}.`, definition.code, timeoutMs, options);
    if (answer.rcode !== 0 && answer.rcode !== 3)
      return { ok: false, reason: `${hostPortName(server)} answered ${RCODE_NAMES[answer.rcode] ?? `RCODE ${answer.rcode}`}` };
    if (!(answer.message.flags & FLAG.AA)) return { ok: false, reason: `${hostPortName(server)} answered without authority` };
    const values = answer.message.answers.filter((r) => r.type === definition.code).map((r) => readRdata(answer.raw, r, definition));
    // the zone the answer came from: the owner of its SOA (in the answer to an SOA query, in the authority section of a negative one)
    const soa = [...answer.message.answers, ...answer.message.authorities].find((r) => r.type === SOA.code);
    return { ok: true, values, ...(soa ? { soaOwner: soa.name.toLowerCase().replace(/\.$/, '') } : {}) };
  } catch (error) {
    return { ok: false, reason: `${hostPortName(server)}: ${(error as Error).message}` };
  }
}
