/**
 * TSIG (RFC 8945) with HMAC-SHA256, -SHA384 and -SHA512 (§6), on messages in wire form, with node:crypto.
 * Names are read and written by the wire module's one codec (name.ts): the key and algorithm names are
 * digested in canonical form (§4.3.3) and written uncompressed (RFC 3597 §4: TSIG is no RFC 1035 type).
 *
 * - the TSIG RR is the last record of the additional section (RFC 8945 §4.1); owner = key name, CLASS ANY,
 *   TTL 0 (§4.2); RDATA = Algorithm Name, Time Signed (48 bits), Fudge, MAC Size, MAC, Original ID, Error,
 *   Other Len, Other Data (§4.2).
 * - the MAC covers (§4.3.3): for a response the request MAC (MAC Size + MAC, §4.3.1/§4.3.3); the message as
 *   it was before the TSIG RR was added (original ID, ARCOUNT without the TSIG RR); then the TSIG variables
 *   (§4.3.3: key name and algorithm in canonical wire form, class, TTL, time signed, fudge, error, other).
 * - later messages of a multi-message answer (§5.3.1): prior MAC + message + "TSIG timers" only (time signed
 *   and fudge).
 * - checks of a request (§5.2): unknown key or algorithm → BADKEY; bad MAC → BADSIG (both answered unsigned with
 *   RCODE NOTAUTH, §5.2.1/§5.2.2); time outside the fudge → BADTIME, answered signed with the server's time in
 *   Other Data (§5.2.3). A truncated MAC shorter than our policy (the full 32 octets) → BADTRUNC (§5.2.2.1).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WireFormatError } from './errors';
import { readWireMessage, WireMessage } from './message';
import { canonicalNameWire } from './name';
import { RdataReader } from './reader';
import { WireWriter } from './writer';

/** TSIG algorithms we sign and verify with (RFC 8945 §6: HMAC-SHA256 mandatory; SHA-384/512 optional) */
export const TSIG_ALGORITHMS = ['hmac-sha256', 'hmac-sha384', 'hmac-sha512'] as const;
export type TsigAlgorithm = (typeof TSIG_ALGORITHMS)[number];
export interface TsigKey {
  name: string;
  algorithm: TsigAlgorithm;
  secret: Buffer;
}

export const TSIG_TYPE = 250;
export const CLASS_ANY = 255;
/** node:crypto's digest and its full MAC length per algorithm name (RFC 8945 §6, names without the final dot) */
const HASHES: Record<TsigAlgorithm, { hash: string; macLength: number }> = {
  'hmac-sha256': { hash: 'sha256', macLength: 32 },
  'hmac-sha384': { hash: 'sha384', macLength: 48 },
  'hmac-sha512': { hash: 'sha512', macLength: 64 },
};
export const isTsigAlgorithm = (name: string): name is TsigAlgorithm => Object.hasOwn(HASHES, name);
/** RFC 8945 §10 (TSIG RR Error codes, IANA "DNS RCODEs") */
export const TSIG_ERROR = { NOERROR: 0, BADSIG: 16, BADKEY: 17, BADTIME: 18, BADTRUNC: 22 } as const;
/** RCODE NOTAUTH (RFC 8945 §5.2: "NOTAUTH" for TSIG errors) */
export const RCODE_NOTAUTH = 9;
export const RCODE_FORMERR = 1;
/** RFC 8945 §5.2.3 recommends 300 seconds */
export const DEFAULT_FUDGE = 300;

export interface TsigRecord {
  keyName: string;
  algorithm: string;
  timeSigned: number;
  fudge: number;
  mac: Buffer;
  originalId: number;
  error: number;
  other: Buffer;
}

/** the key and algorithm names as TSIG compares them: lower-case, without the final dot (`hmac-sha256`) */
const comparableName = (absoluteName: string) => (absoluteName === '.' ? '' : absoluteName.toLowerCase().replace(/\.$/, ''));

/** the canonical wire form of a key or algorithm name given as `name` or `name.` (RFC 8945 §4.3.3) */
const canonicalName = (name: string) => canonicalNameWire(name.endsWith('.') ? name : `${name}.`);

/**
 * Finds the TSIG RR of a message: it must be the last additional record (RFC 8945 §5.1, a TSIG elsewhere is
 * FORMERR). Returns undefined when the message has none; throws on a malformed message.
 */
export function findTsig(message: Buffer, framed?: WireMessage): { tsig: TsigRecord; start: number } | undefined {
  const { answers, authorities, additionals } = framed ?? readWireMessage(message);
  const records = [...answers, ...authorities, ...additionals];
  records.forEach((record, i) => {
    if (record.type === TSIG_TYPE && i !== records.length - 1) throw new WireFormatError('TSIG is not the last record');
  });
  const last = additionals[additionals.length - 1];
  if (!last || last.type !== TSIG_TYPE) return undefined;
  const reader = new RdataReader(message, last.rdataStart, last.rdataLength);
  const algorithm = comparableName(reader.name());
  const timeSigned = reader.u48();
  const fudge = reader.u16();
  const mac = reader.bytes(reader.u16());
  const originalId = reader.u16();
  const error = reader.u16();
  const other = reader.bytes(reader.u16());
  reader.finish();
  return { start: last.start, tsig: { keyName: comparableName(last.name), algorithm, timeSigned, fudge, mac, originalId, error, other } };
}

/** the message as it was before the TSIG RR was added: original ID, ARCOUNT - 1, no TSIG RR (§4.3.2) */
function unsignedPart(message: Buffer, start: number, originalId: number): Buffer {
  const copy = Buffer.from(message.subarray(0, start));
  copy.writeUInt16BE(originalId, 0);
  copy.writeUInt16BE(copy.readUInt16BE(10) - 1, 10);
  return copy;
}

/** the TSIG variables (§4.3.3): key name, CLASS ANY, TTL 0, algorithm name (names in canonical form), time signed, fudge, error, other */
function variables(keyName: string, algorithm: TsigAlgorithm, timeSigned: number, fudge: number, error: number, other: Buffer): Buffer {
  return new WireWriter({ size: 96 + other.length })
    .bytes(canonicalName(keyName))
    .u16(CLASS_ANY)
    .u32(0)
    .bytes(canonicalName(algorithm))
    .u48(timeSigned)
    .u16(fudge)
    .u16(error)
    .u16(other.length)
    .bytes(other)
    .toBuffer();
}

/** the "TSIG timers" of a later message of a multi-message answer (§5.3.1): time signed and fudge */
function timers(timeSigned: number, fudge: number): Buffer {
  return new WireWriter({ size: 8 }).u48(timeSigned).u16(fudge).toBuffer();
}

/** a prior MAC as digested (§4.3.1, §5.3.1): MAC Size, then the MAC; nothing without one */
function macPrefix(mac: Buffer | undefined): Buffer {
  return mac ? new WireWriter({ size: 2 + mac.length }).u16(mac.length).bytes(mac).toBuffer() : Buffer.alloc(0);
}

export interface SignOptions {
  /** signing a response: the MAC of the request (§4.3.3) */
  requestMac?: Buffer;
  /** a later message of a multi-message response: the MAC of the previous message; only timers are digested (§5.3.1) */
  priorMac?: Buffer;
  error?: number;
  other?: Buffer;
  /** seconds since the epoch; now by default */
  time?: number;
  fudge?: number;
  /** an unsigned error answer (BADKEY, BADSIG): MAC Size 0 (§5.2.1, §5.2.2) */
  noMac?: boolean;
  /** the algorithm name written in the TSIG RR when it is not the key's: an error answer echoes the request's */
  algorithmName?: string;
}

/** appends a TSIG RR to an encoded message (ARCOUNT + 1) and returns the signed message and its MAC */
export function signMessage(message: Buffer, key: TsigKey, options: SignOptions = {}): { message: Buffer; mac: Buffer } {
  const time = options.time ?? Math.floor(Date.now() / 1000);
  const fudge = options.fudge ?? DEFAULT_FUDGE;
  const error = options.error ?? 0;
  const other = options.other ?? Buffer.alloc(0);
  let mac = Buffer.alloc(0);
  if (!options.noMac) {
    const hmac = createHmac(HASHES[key.algorithm].hash, key.secret);
    if (options.priorMac) {
      hmac.update(macPrefix(options.priorMac));
      hmac.update(message);
      hmac.update(timers(time, fudge));
    } else {
      hmac.update(macPrefix(options.requestMac));
      hmac.update(message);
      hmac.update(variables(key.name, key.algorithm, time, fudge, error, other));
    }
    mac = hmac.digest();
  }
  // the RR (§4.2): owner the key name, TYPE TSIG, CLASS ANY, TTL 0; names uncompressed (RFC 3597 §4)
  const writer = new WireWriter({ size: message.length + 128 + other.length });
  writer.bytes(message).bytes(canonicalName(key.name)).u16(TSIG_TYPE).u16(CLASS_ANY).u32(0);
  const rdlength = writer.beginLength();
  writer
    .bytes(canonicalName(options.algorithmName ?? key.algorithm))
    .u48(time)
    .u16(fudge)
    .u16(mac.length)
    .bytes(mac)
    .u16(message.readUInt16BE(0))
    .u16(error)
    .u16(other.length)
    .bytes(other);
  writer.endLength(rdlength);
  const signed = writer.toBuffer();
  signed.writeUInt16BE(signed.readUInt16BE(10) + 1, 10);
  return { message: signed, mac };
}

export type VerifyResult =
  | { status: 'unsigned' }
  | { status: 'ok'; tsig: TsigRecord }
  /** a TSIG error: answer with RCODE NOTAUTH and this TSIG error (signed only for BADTIME) */
  | { status: 'error'; error: number; tsig: TsigRecord }
  | { status: 'formerr'; reason: string };

/**
 * Verifies the TSIG of a message with our key (RFC 8945 §5.2 for requests; with `requestMac` for a response to
 * our own signed request, §5.3.3... §5.4).
 */
export function verifyMessage(
  message: Buffer,
  key: TsigKey | undefined,
  options: {
    requestMac?: Buffer;
    /**
     * a later message of a multi-message answer (a transfer in, §5.3.1): the MAC of the last signed message, and
     * the unsigned messages since (their octets are in this one's digest)
     */
    priorMac?: Buffer;
    unsignedSince?: Buffer[];
    now?: number;
    found?: ReturnType<typeof findTsig>;
  } = {},
): VerifyResult {
  let found: ReturnType<typeof findTsig>;
  try {
    found = options.found ?? findTsig(message);
  } catch (error) {
    return { status: 'formerr', reason: (error as Error).message };
  }
  if (!found) return { status: 'unsigned' };
  const { tsig, start } = found;
  // §5.2.1: key and algorithm must both be known
  if (!key || tsig.keyName !== key.name.toLowerCase().replace(/\.$/, '') || tsig.algorithm !== key.algorithm) {
    return { status: 'error', error: TSIG_ERROR.BADKEY, tsig };
  }
  const { hash, macLength } = HASHES[key.algorithm];
  // §5.2.2.1: MAC length checks (we accept only the full MAC as local policy)
  if (tsig.mac.length > macLength || tsig.mac.length < 10 || tsig.mac.length < macLength / 2) {
    return { status: 'formerr', reason: 'bad MAC length' };
  }
  const hmac = createHmac(hash, key.secret);
  if (options.priorMac) {
    hmac.update(macPrefix(options.priorMac));
    for (const unsigned of options.unsignedSince ?? []) hmac.update(unsigned);
    hmac.update(unsignedPart(message, start, tsig.originalId));
    hmac.update(timers(tsig.timeSigned, tsig.fudge));
  } else {
    hmac.update(macPrefix(options.requestMac));
    hmac.update(unsignedPart(message, start, tsig.originalId));
    hmac.update(variables(tsig.keyName, key.algorithm, tsig.timeSigned, tsig.fudge, tsig.error, tsig.other));
  }
  const expected = hmac.digest().subarray(0, tsig.mac.length);
  if (!timingSafeEqual(expected, tsig.mac)) return { status: 'error', error: TSIG_ERROR.BADSIG, tsig };
  if (tsig.mac.length < macLength) return { status: 'error', error: TSIG_ERROR.BADTRUNC, tsig };
  // §5.2.3: time check after the MAC check
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - tsig.timeSigned) > tsig.fudge) return { status: 'error', error: TSIG_ERROR.BADTIME, tsig };
  return { status: 'ok', tsig };
}

/** Other Data of a BADTIME answer: the server's current time, 48 bits (§5.2.3) */
export function badTimeOther(now = Math.floor(Date.now() / 1000)): Buffer {
  return new WireWriter({ size: 6 }).u48(now).toBuffer();
}
