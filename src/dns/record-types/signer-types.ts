/**
 * The record types only the signer writes: RRSIG and NSEC (RFC 4034 §3, §4), NSEC3 and NSEC3PARAM (RFC 5155
 * §3, §4). They are not in the user-facing registry (index.ts): no API, zone file or UPDATE can store one
 * (imports drop them, zone-file.ts); the signer makes them and the primary serves them like any other type.
 */
import type { Reading } from '../reading';
import { parseDomainNameInRdata } from '../name';
import { checkFieldCount, parseBase64, parseHex, parseUnsigned, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { base32hex, fromBase32hex } from '../wire/nsec3-hash';
import { typeBitmap, typesOfBitmap } from '../wire/type-bitmap';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';
import { typeCodeOf, typeMnemonicOf } from './type-codes';

/** RRSIG's RDATA (RFC 4034 §3.1), the Signer's Name in presentation form */
export interface RRSIGValue {
  typeCovered: number;
  algorithm: number;
  /** RFC 4034 §3.1.3: labels of the owner, not counting the root nor a leading wildcard label */
  labels: number;
  originalTtl: number;
  /** seconds since the epoch, written modulo 2^32 (RFC 4034 §3.1.5: serial number arithmetic) */
  expiration: number;
  inception: number;
  keyTag: number;
  signer: string;
  signature: Buffer;
}
export interface NSECValue {
  next: string;
  types: number[];
}
export interface NSEC3PARAMValue {
  hashAlgorithm: number;
  flags: number;
  iterations: number;
  salt: Buffer;
}
export interface NSEC3Value extends NSEC3PARAMValue {
  nextHashed: Buffer;
  types: number[];
}

/** a type named in RDATA (a mnemonic, or TYPEnnn), with a problem when it is none */
export function typeCode(text: string, problems: Problem[]): number | undefined {
  const upper = text.toUpperCase();
  const m = /^TYPE([0-9]{1,5})$/.exec(upper);
  const code = m ? Number(m[1]) : typeCodeOf(upper);
  if (code === undefined || code > 65535)
    problems.push(problem('rdata', 'TYPE_UNKNOWN', `rdata: ${JSON.stringify(text)} is not a record type`));
  return code;
}

/** RFC 4034 §3.2: YYYYMMDDHHmmSS (UTC), or a plain number of seconds */
function parseSignatureTime(text: string, name: string, problems: Problem[]): number | undefined {
  return signatureTimeOf(text) ?? parseUnsigned(text, { type: 'RRSIG', name, max: 4294967295 }, problems);
}

/** RFC 4034 §3.2: the seconds of a time written YYYYMMDDHHmmSS (UTC); undefined when not written so */
export function signatureTimeOf(text: string): number | undefined {
  if (/^[0-9]{14}$/.test(text)) {
    const [y, mo, d, h, mi, s] = [
      text.slice(0, 4),
      text.slice(4, 6),
      text.slice(6, 8),
      text.slice(8, 10),
      text.slice(10, 12),
      text.slice(12, 14),
    ].map(Number);
    return Math.floor(Date.UTC(y, mo - 1, d, h, mi, s) / 1000) >>> 0;
  }
  return undefined;
}

/**
 * An RRSIG's covered type and expiration from its leading fields, without parsing the rest (the signature's
 * base64 above all): what the signer asks of every stored RRSIG it meets on a write. Undefined when they do
 * not parse.
 */
export function rrsigCoverage(rdata: string): { typeCovered: number; expiration: number } | undefined {
  const fields = rdata.trim().split(/\s+/, 5);
  if (fields.length < 5) return undefined;
  const problems: Problem[] = [];
  const typeCovered = typeCode(fields[0], problems);
  const expiration = parseSignatureTime(fields[4], 'expiration', problems);
  return typeCovered === undefined || expiration === undefined || problems.length ? undefined : { typeCovered, expiration };
}

/**
 * The types an NSEC's or NSEC3's Type Bit Maps field lists, from its presentation form, without parsing (and
 * formatting back) the fields before them: what the incremental signer asks of every stored NSEC or NSEC3 it
 * rewrites. Text in the form the signer writes it (no quotes, parentheses or comments) is split on blanks;
 * other text is parsed whole. Undefined when it does not parse.
 */
export function denialTypesOf(type: 'NSEC' | 'NSEC3', rdata: string, zone: string): number[] | undefined {
  if (!/["();\\]/.test(rdata)) {
    const fields = rdata.trim().split(/\s+/);
    const before = type === 'NSEC' ? 1 : 5;
    if (fields.length >= before && fields[0] !== '') {
      const problems: Problem[] = [];
      const types = fields.slice(before).map((t) => typeCode(t, problems));
      if (!problems.length) return types as number[];
    }
  }
  const parsed = (type === 'NSEC' ? NSEC : NSEC3).parse(rdata, zone);
  return parsed.ok ? parsed.value.types : undefined;
}

/**
 * The times last formatted: a zone's signatures share one inception and a few thousand expirations (the
 * jitter's seconds), so a signer formatting a million RRSIGs formats each time once, not twice per RRSIG.
 */
const formattedTimes = new Map<number, string>();
const FORMATTED_TIMES_KEPT = 8192;

/** RFC 4034 §3.2: YYYYMMDDHHmmSS in UTC, how the presentation form writes the two times */
export function formatSignatureTime(seconds: number): string {
  let text = formattedTimes.get(seconds);
  if (text === undefined) {
    text = timeText(seconds);
    if (formattedTimes.size >= FORMATTED_TIMES_KEPT) formattedTimes.clear();
    formattedTimes.set(seconds, text);
  }
  return text;
}

const DAY_SECONDS = 86400;
/** the dates (YYYYMMDD) of the days last formatted: a write's expiration is a new second each time, on one of a few days */
const formattedDays = new Map<number, string>();
const two = (n: number) => (n < 10 ? `0${n}` : String(n));

function timeText(seconds: number): string {
  // years 1970–9999 in whole seconds: the day's date once, the time of day by arithmetic (toISOString per
  // signature was a tenth of a signed write's formatting)
  if (!Number.isInteger(seconds) || seconds < 0 || seconds >= 253402300800)
    return new Date(seconds * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const day = Math.floor(seconds / DAY_SECONDS);
  let date = formattedDays.get(day);
  if (date === undefined) {
    date = new Date(day * DAY_SECONDS * 1000).toISOString().slice(0, 10).replace(/-/g, '');
    if (formattedDays.size >= 1024) formattedDays.clear();
    formattedDays.set(day, date);
  }
  const rest = seconds - day * DAY_SECONDS;
  return `${date}${two(Math.floor(rest / 3600))}${two(Math.floor(rest / 60) % 60)}${two(rest % 60)}`;
}

/**
 * The type lists last written, by the types as given: a zone's NSEC and NSEC3 records have a handful of
 * different type sets between them, so a signer writing a chain of a million formats each set once
 */
const typeLists = new Map<string, string>();
const TYPE_LISTS_KEPT = 4096;

const typeList = (types: number[]) => {
  const key = types.join(',');
  let text = typeLists.get(key);
  if (text === undefined) {
    text = [...new Set(types)]
      .sort((a, b) => a - b)
      .map((code) => typeMnemonicOf(code))
      .join(' ');
    if (typeLists.size >= TYPE_LISTS_KEPT) typeLists.clear();
    typeLists.set(key, text);
  }
  return text;
};

/**
 * The presentation form of an RRSIG up to its Signature field, a blank included: the fields a zone's RRSIGs
 * share by the thousand (a signer keeps it and appends each signature's base64)
 */
export const rrsigTextHead = (v: Omit<RRSIGValue, 'signature'>): string =>
  `${typeMnemonicOf(v.typeCovered)} ${v.algorithm} ${v.labels} ${v.originalTtl} ${formatSignatureTime(v.expiration)} ${formatSignatureTime(v.inception)} ${v.keyTag} ${v.signer} `;

/**
 * `rrsigTextHead` without keeping its expiration's text: a signed write's few RRSIGs each expire at a second of
 * their own (the jitter's), which no later RRSIG shares, so keeping them only fills the cache with text that
 * lives long enough to be promoted and then dies old (a collection of the old generation's doing)
 */
export const rrsigTextHeadOnce = (v: Omit<RRSIGValue, 'signature'>): string =>
  `${typeMnemonicOf(v.typeCovered)} ${v.algorithm} ${v.labels} ${v.originalTtl} ${timeText(v.expiration)} ${formatSignatureTime(v.inception)} ${v.keyTag} ${v.signer} `;

/** RRSIG (RFC 4034 §3) */
export const RRSIG: RecordTypeDefinition<RRSIGValue> = {
  type: 'RRSIG',
  code: 46,
  rfcs: ['RFC 4034 §3'],
  fields: [
    { name: 'type-covered', description: 'the type of the RRset signed' },
    { name: 'algorithm', description: 'DNSSEC algorithm number', kind: 'int' },
    { name: 'labels', description: 'labels of the owner, without the root and a wildcard', kind: 'int' },
    { name: 'original-ttl', description: 'the RRset TTL in the zone', kind: 'int' },
    { name: 'expiration', description: 'YYYYMMDDHHmmSS (UTC)' },
    { name: 'inception', description: 'YYYYMMDDHHmmSS (UTC)' },
    { name: 'key-tag', description: "the signing DNSKEY's tag", kind: 'int' },
    { name: 'signer', description: 'the zone apex' },
    { name: 'signature', description: 'base64' },
  ],
  parse(rdata: string, zone: Reading): ParseResult<RRSIGValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    const names = ['type-covered', 'algorithm', 'labels', 'original-ttl', 'expiration', 'inception', 'key-tag', 'signer', 'signature'];
    if (!checkFieldCount('RRSIG', split.fields, names, problems, true)) return { ok: false, problems };
    const f = split.fields.map((x) => x.raw);
    const typeCovered = typeCode(f[0], problems);
    const algorithm = parseUnsigned(f[1], { type: 'RRSIG', name: 'algorithm', max: 255 }, problems);
    const labels = parseUnsigned(f[2], { type: 'RRSIG', name: 'labels', max: 255 }, problems);
    const originalTtl = parseUnsigned(f[3], { type: 'RRSIG', name: 'original TTL', max: 4294967295 }, problems);
    const expiration = parseSignatureTime(f[4], 'expiration', problems);
    const inception = parseSignatureTime(f[5], 'inception', problems);
    const keyTag = parseUnsigned(f[6], { type: 'RRSIG', name: 'key tag', max: 65535 }, problems);
    const signer = parseDomainNameInRdata(f[7], zone, 'rdata');
    if (!signer.ok) problems.push(...signer.problems);
    const signature = parseBase64(f.slice(8).join(''), 'RRSIG signature', problems);
    return finish(
      problems,
      () => ({
        typeCovered: typeCovered!,
        algorithm: algorithm!,
        labels: labels!,
        originalTtl: originalTtl!,
        expiration: expiration!,
        inception: inception!,
        keyTag: keyTag!,
        signer: (signer as { name: string }).name,
        signature: signature!,
      }),
      RRSIG.format,
    );
  },
  format: (v) => rrsigTextHead(v) + v.signature.toString('base64'),
  fromWire: (r) => ({
    typeCovered: r.u16(),
    algorithm: r.u8(),
    labels: r.u8(),
    originalTtl: r.u32(),
    expiration: r.u32(),
    inception: r.u32(),
    keyTag: r.u16(),
    signer: r.name(),
    signature: r.rest(),
  }),
  // RFC 4034 §3.1: the signer's name is never compressed (RFC 3597 §4), and is lower-case in canonical form
  toWire: (v, w) => {
    w.u16(v.typeCovered)
      .u8(v.algorithm)
      .u8(v.labels)
      .u32(v.originalTtl)
      .u32(v.expiration)
      .u32(v.inception)
      .u16(v.keyTag)
      .name(v.signer)
      .bytes(v.signature);
  },
};

/** NSEC (RFC 4034 §4): the next owner in canonical order and the types at this owner */
export const NSEC: RecordTypeDefinition<NSECValue> = {
  type: 'NSEC',
  code: 47,
  rfcs: ['RFC 4034 §4'],
  fields: [
    { name: 'next', description: "the next owner name in the zone's canonical order" },
    { name: 'types', description: 'the types present at this owner' },
  ],
  parse(rdata: string, zone: Reading): ParseResult<NSECValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('NSEC', split.fields, ['next'], problems, true)) return { ok: false, problems };
    const f = split.fields.map((x) => x.raw);
    const next = parseDomainNameInRdata(f[0], zone, 'rdata', { allowWildcard: true });
    if (!next.ok) problems.push(...next.problems);
    const types = f.slice(1).map((t) => typeCode(t, problems));
    return finish(problems, () => ({ next: (next as { name: string }).name, types: types as number[] }), NSEC.format);
  },
  format: (v) => `${v.next}${v.types.length ? ' ' + typeList(v.types) : ''}`,
  fromWire: (r) => ({ next: r.name(), types: typesOfBitmap(r.rest()) }),
  // RFC 6840 §5.1: the next owner name is not lower-cased in canonical form; it is written as stored
  toWire: (v, w) => {
    w.name(v.next).bytes(typeBitmap(v.types));
  },
};

function parseNsec3Head(f: string[], type: string, problems: Problem[]): NSEC3PARAMValue | undefined {
  const hashAlgorithm = parseUnsigned(f[0], { type, name: 'hash algorithm', max: 255 }, problems);
  const flags = parseUnsigned(f[1], { type, name: 'flags', max: 255 }, problems);
  const iterations = parseUnsigned(f[2], { type, name: 'iterations', max: 65535 }, problems);
  const salt = f[3] === '-' ? Buffer.alloc(0) : parseHex([f[3]], `${type} salt`, problems);
  if (salt && salt.length > 255)
    problems.push(
      problem('rdata', 'NSEC3_SALT_TOO_LONG', `rdata: ${type} salt is ${salt.length} octets; the limit is 255 (RFC 5155 §3.1.5)`, 255),
    );
  if (problems.length) return undefined;
  return { hashAlgorithm: hashAlgorithm!, flags: flags!, iterations: iterations!, salt: salt! };
}

const formatNsec3Head = (v: NSEC3PARAMValue) =>
  `${v.hashAlgorithm} ${v.flags} ${v.iterations} ${v.salt.length ? v.salt.toString('hex').toUpperCase() : '-'}`;

/** NSEC3's presentation form from its parts: the head (NSEC3PARAM's fields), the next hashed owner's label, the types */
const nsec3Text = (head: string, nextLabel: string, types: number[]) => `${head} ${nextLabel}${types.length ? ' ' + typeList(types) : ''}`;

/**
 * `NSEC3.format` for a chain's records, which share their head and have their next owner's label already
 * (the owner of the next record): the head formatted once, no base32hex written twice
 */
export function nsec3ChainFormatter(params: NSEC3PARAMValue): (nextLabel: string, types: number[]) => string {
  const head = formatNsec3Head(params);
  return (nextLabel, types) => nsec3Text(head, nextLabel, types);
}

function nsec3HeadWire(v: NSEC3PARAMValue): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(v.hashAlgorithm, 0);
  head.writeUInt8(v.flags, 1);
  head.writeUInt16BE(v.iterations, 2);
  head.writeUInt8(v.salt.length, 4);
  return Buffer.concat([head, v.salt]);
}

/**
 * NSEC3's RDATA in wire form (RFC 5155 §3.2, as `NSEC3.toWire` writes it) for a chain's records, which share
 * their head: the head written once, and each distinct type bitmap once (a zone has few), so a chain of
 * 100,000 records is not written field by field through the wire writer.
 */
export function nsec3ChainWire(params: NSEC3PARAMValue): (nextHashed: Buffer, types: number[]) => Buffer {
  const head = nsec3HeadWire(params);
  const bitmaps = new Map<string, Buffer>();
  return (nextHashed, types) => {
    const key = types.join(',');
    let bitmap = bitmaps.get(key);
    if (!bitmap) bitmaps.set(key, (bitmap = typeBitmap(types)));
    return Buffer.concat([head, Buffer.of(nextHashed.length), nextHashed, bitmap]);
  };
}

/** NSEC3 (RFC 5155 §3): hash parameters, the next hashed owner (base32hex) and the types at this owner */
export const NSEC3: RecordTypeDefinition<NSEC3Value> = {
  type: 'NSEC3',
  code: 50,
  rfcs: ['RFC 5155 §3'],
  fields: [
    { name: 'hash-algorithm', description: '1 = SHA-1', kind: 'int' },
    { name: 'flags', description: '1 = opt-out', kind: 'int' },
    { name: 'iterations', description: 'additional hash iterations', kind: 'int' },
    { name: 'salt', description: 'hex, or - for none' },
    { name: 'next-hashed-owner', description: 'base32hex' },
    { name: 'types', description: 'the types present at the original owner' },
  ],
  parse(rdata: string): ParseResult<NSEC3Value> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('NSEC3', split.fields, ['hash-algorithm', 'flags', 'iterations', 'salt', 'next-hashed-owner'], problems, true))
      return { ok: false, problems };
    const f = split.fields.map((x) => x.raw);
    const head = parseNsec3Head(f, 'NSEC3', problems);
    let nextHashed: Buffer | undefined;
    try {
      nextHashed = fromBase32hex(f[4]);
    } catch {
      problems.push(
        problem('rdata', 'NSEC3_NEXT_HASHED', `rdata: NSEC3 next hashed owner ${JSON.stringify(f[4])} is not base32hex (RFC 5155 §3.3)`),
      );
    }
    const types = f.slice(5).map((t) => typeCode(t, problems));
    return finish(problems, () => ({ ...head!, nextHashed: nextHashed!, types: types as number[] }), NSEC3.format);
  },
  format: (v) => nsec3Text(formatNsec3Head(v), base32hex(v.nextHashed), v.types),
  fromWire(r) {
    const hashAlgorithm = r.u8();
    const flags = r.u8();
    const iterations = r.u16();
    const salt = r.bytes(r.u8());
    const nextHashed = r.bytes(r.u8());
    return {
      hashAlgorithm,
      flags,
      iterations,
      salt: Buffer.from(salt),
      nextHashed: Buffer.from(nextHashed),
      types: typesOfBitmap(r.rest()),
    };
  },
  toWire: (v, w) => {
    w.bytes(nsec3HeadWire(v)).u8(v.nextHashed.length).bytes(v.nextHashed).bytes(typeBitmap(v.types));
  },
};

/** NSEC3PARAM (RFC 5155 §4): the parameters an authoritative server uses to find the zone's NSEC3 records */
export const NSEC3PARAM: RecordTypeDefinition<NSEC3PARAMValue> = {
  type: 'NSEC3PARAM',
  code: 51,
  rfcs: ['RFC 5155 §4'],
  fields: NSEC3.fields.slice(0, 4),
  parse(rdata: string): ParseResult<NSEC3PARAMValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('NSEC3PARAM', split.fields, ['hash-algorithm', 'flags', 'iterations', 'salt'], problems))
      return { ok: false, problems };
    const head = parseNsec3Head(
      split.fields.map((x) => x.raw),
      'NSEC3PARAM',
      problems,
    );
    return finish(problems, () => head!, NSEC3PARAM.format);
  },
  format: formatNsec3Head,
  fromWire: (r) => {
    const hashAlgorithm = r.u8();
    const flags = r.u8();
    const iterations = r.u16();
    return { hashAlgorithm, flags, iterations, salt: Buffer.from(r.bytes(r.u8())) };
  },
  toWire: (v, w) => {
    w.bytes(nsec3HeadWire(v));
  },
};

export const SIGNER_RECORD_TYPES: readonly RecordTypeDefinition[] = [RRSIG, NSEC, NSEC3, NSEC3PARAM];
