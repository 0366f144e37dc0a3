/**
 * DNS messages (RFC 1035 §4.1): the header, the question, the answer, authority and additional sections, the
 * OPT pseudo-record (EDNS, RFC 6891 §6) and its options (the Extended DNS Error of RFC 8914 among them).
 * Reading frames each record by its RDLENGTH, and RDATA is read later by its type (`readRdata`): an UPDATE
 * (RFC 2136 §2) carries records of CLASS ANY or NONE with empty RDATA that no type's reader could take.
 * Writing compresses owner names and the names in RDATA of the RFC 1035 types (RFC 1035 §4.1.4, RFC 3597 §4).
 */
import { ownerToFqdn } from '../name';
import type { RecordTypeDefinition } from '../record-types';
import { getRecordType, getServedRecordType } from '../record-types';
import { WireFormatError } from './errors';
import { readName } from './name';
import { RdataReader } from './reader';
import { COMPRESSIBLE_RDATA_TYPES } from './rules';
import { WireWriter } from './writer';

/** header flags (RFC 1035 §4.1.1) */
export const FLAG = { QR: 0x8000, AA: 0x0400, TC: 0x0200, RD: 0x0100, RA: 0x0080, AD: 0x0020 } as const;
/** the OPT's DO bit: DNSSEC records wanted (RFC 3225 §3) */
export const EDNS_DO = 0x8000;
/** OPCODEs: QUERY (RFC 1035 §4.1.1), NOTIFY (RFC 1996 §3), UPDATE (RFC 2136 §1) */
export const OPCODE = { QUERY: 0, NOTIFY: 4, UPDATE: 5 } as const;
/** CLASS values: IN (RFC 1035 §3.2.4), NONE (RFC 2136 §1), ANY (RFC 1035 §3.2.5) */
export const CLASS = { IN: 1, CH: 3, HS: 4, NONE: 254, ANY: 255 } as const;
export const TYPE_OPT = 41;

/** the OPCODE of a header's flags */
export const opcodeOf = (flags: number): number => (flags >> 11) & 0xf;

/**
 * Mnemonics of the type codes that are no record type of the model: meta and query types (RFC 6895 §3.1)
 * and the signer's types. Any other code is named by the record types' registry, or `TYPEnnn` (RFC 3597 §5).
 */
const OTHER_TYPES = new Map<number, string>([
  [41, 'OPT'],
  [46, 'RRSIG'],
  [47, 'NSEC'],
  [50, 'NSEC3'],
  [51, 'NSEC3PARAM'],
  [249, 'TKEY'],
  [250, 'TSIG'],
  [251, 'IXFR'],
  [252, 'AXFR'],
  [253, 'MAILB'],
  [254, 'MAILA'],
  [255, 'ANY'],
]);

/** the mnemonic of a type code: `MX`, `AXFR`, `TYPE65280` */
export function typeMnemonic(code: number): string {
  return OTHER_TYPES.get(code) ?? getRecordType(`TYPE${code}`)?.type ?? `TYPE${code}`;
}

const CLASS_NAMES = new Map<number, string>([
  [1, 'IN'],
  [3, 'CH'],
  [4, 'HS'],
  [254, 'NONE'],
  [255, 'ANY'],
]);
/** the mnemonic of a class: `IN`, `CH`, `CLASS42` (RFC 3597 §5) */
export const classMnemonic = (code: number): string => CLASS_NAMES.get(code) ?? `CLASS${code}`;

/** One resource record as framed on the wire; RDATA is read later, by its type, from `rdataStart`. */
export interface WireRecord {
  /** where the record (its owner name) starts in the message */
  start: number;
  /** absolute, presentation form */
  name: string;
  type: number;
  klass: number;
  ttl: number;
  rdataStart: number;
  rdataLength: number;
}

export interface WireQuestion {
  name: string;
  type: number;
  klass: number;
}

/** A message's sections as framed records; for an UPDATE: zone, prerequisites, updates, additional (RFC 2136 §2). */
export interface WireMessage {
  id: number;
  flags: number;
  questions: WireQuestion[];
  answers: WireRecord[];
  authorities: WireRecord[];
  additionals: WireRecord[];
}

/** Frames a whole message; throws WireFormatError when any section does not fit the message. */
export function readWireMessage(message: Buffer): WireMessage {
  if (message.length < 12) throw new WireFormatError('message shorter than its header');
  const counts = [4, 6, 8, 10].map((o) => message.readUInt16BE(o));
  let position = 12;
  const need = (octets: number) => {
    if (position + octets > message.length) throw new WireFormatError('message ends inside a record');
  };
  const questions: WireQuestion[] = [];
  for (let i = 0; i < counts[0]; i++) {
    const { name, octets } = readName(message, position);
    position += octets;
    need(4);
    questions.push({ name, type: message.readUInt16BE(position), klass: message.readUInt16BE(position + 2) });
    position += 4;
  }
  const section = (count: number): WireRecord[] => {
    const records: WireRecord[] = [];
    for (let i = 0; i < count; i++) {
      const start = position;
      const { name, octets } = readName(message, position);
      position += octets;
      need(10);
      const rdataLength = message.readUInt16BE(position + 8);
      const record = {
        start,
        name,
        type: message.readUInt16BE(position),
        klass: message.readUInt16BE(position + 2),
        ttl: message.readUInt32BE(position + 4),
        rdataStart: position + 10,
        rdataLength,
      };
      position += 10;
      need(rdataLength);
      position += rdataLength;
      records.push(record);
    }
    return records;
  };
  const answers = section(counts[1]);
  const authorities = section(counts[2]);
  const additionals = section(counts[3]);
  if (position !== message.length) throw new WireFormatError('octets after the last record');
  return { id: message.readUInt16BE(0), flags: message.readUInt16BE(2), questions, answers, authorities, additionals };
}

/** A record's RDATA read by its type's `fromWire`; all of it must be read (else WireFormatError). */
export function readRdata<V>(message: Buffer, record: WireRecord, definition: RecordTypeDefinition<V>): V {
  if (!definition.fromWire) throw new WireFormatError(`${definition.type} RDATA is not read from the wire`);
  const reader = new RdataReader(message, record.rdataStart, record.rdataLength);
  const value = definition.fromWire(reader);
  reader.finish();
  return value;
}

export interface EdnsOption {
  code: number;
  data: Buffer;
}

/** the OPT pseudo-record's fields (RFC 6891 §6.1.2, §6.1.3) */
export interface Edns {
  /** the requestor's UDP payload size (the OPT's CLASS) */
  udpPayloadSize: number;
  extendedRcode: number;
  version: number;
  /** the DO bit and the rest (RFC 6891 §6.1.4) */
  flags: number;
  options: EdnsOption[];
}

/** The OPT record of a message (RFC 6891 §6.1.1: at most one, in the additional section), read; undefined if none. */
export function readEdns(raw: Buffer, message: WireMessage): Edns | undefined {
  const opts = message.additionals.filter((r) => r.type === TYPE_OPT);
  if (!opts.length) return undefined;
  if (opts.length > 1) throw new WireFormatError('more than one OPT record (RFC 6891 §6.1.1)');
  const [opt] = opts;
  if (opt.name !== '.') throw new WireFormatError('an OPT record whose owner is not the root (RFC 6891 §6.1.2)');
  const reader = new RdataReader(raw, opt.rdataStart, opt.rdataLength);
  const options: EdnsOption[] = [];
  while (reader.remaining > 0) {
    const code = reader.u16();
    options.push({ code, data: reader.bytes(reader.u16()) });
  }
  return { udpPayloadSize: opt.klass, extendedRcode: opt.ttl >>> 24, version: (opt.ttl >>> 16) & 0xff, flags: opt.ttl & 0xffff, options };
}

/** RDATA to write: a value of a record type (written by its `toWire`), or octets as they are (RFC 3597 §5) */
export type OutgoingRdata = { definition: RecordTypeDefinition; value: unknown } | Buffer;

export interface OutgoingRecord {
  /** absolute, presentation form */
  name: string;
  type: number;
  klass: number;
  ttl: number;
  rdata: OutgoingRdata;
}

export type Section = 'answer' | 'authority' | 'additional';
const SECTION_INDEX: Record<Section, number> = { answer: 1, authority: 2, additional: 3 };

/**
 * Writes one message section by section (question, answer, authority, additional, in that order). A record
 * that makes the message too long can be taken back (`mark`, `rollback`): a transfer cuts its messages so.
 */
export class MessageWriter {
  private readonly writer = new WireWriter({ compression: true, size: 512 });
  private readonly counts = [0, 0, 0, 0];
  private section = 0;

  constructor(header: { id: number; flags: number }) {
    this.writer.u16(header.id).u16(header.flags).u16(0).u16(0).u16(0).u16(0);
  }

  get length(): number {
    return this.writer.length;
  }

  private enter(section: number): void {
    if (section < this.section) throw new Error('message sections are written in order');
    this.section = section;
    this.counts[section]++;
  }

  question(question: WireQuestion): this {
    this.enter(0);
    this.writer.name(question.name, { compress: true, lowercase: false });
    this.writer.u16(question.type).u16(question.klass);
    return this;
  }

  record(section: Section, record: OutgoingRecord): this {
    this.enter(SECTION_INDEX[section]);
    const w = this.writer;
    w.name(record.name, { compress: true, lowercase: false });
    w.u16(record.type)
      .u16(record.klass)
      .u32(record.ttl >>> 0);
    const at = w.beginLength();
    if (Buffer.isBuffer(record.rdata)) {
      w.bytes(record.rdata);
    } else {
      // RFC 3597 §4: names in RDATA compressed only for the RFC 1035 types
      w.nameRules = { compress: COMPRESSIBLE_RDATA_TYPES.has(record.type), lowercase: false };
      try {
        record.rdata.definition.toWire(record.rdata.value, w);
      } finally {
        w.nameRules = { compress: false, lowercase: false };
      }
    }
    w.endLength(at);
    return this;
  }

  /** the OPT pseudo-record, last of the additional section (RFC 6891 §6.1.2) */
  edns(edns: Edns): this {
    const data = new WireWriter({ size: 64 });
    for (const option of edns.options) data.u16(option.code).u16(option.data.length).bytes(option.data);
    return this.record('additional', {
      name: '.',
      type: TYPE_OPT,
      klass: edns.udpPayloadSize,
      ttl: (((edns.extendedRcode & 0xff) << 24) | ((edns.version & 0xff) << 16) | (edns.flags & 0xffff)) >>> 0,
      rdata: data.toBuffer(),
    });
  }

  /** where the message is, to take back what follows */
  mark(): { at: number; counts: number[]; section: number } {
    return { at: this.writer.mark(), counts: [...this.counts], section: this.section };
  }

  rollback(mark: { at: number; counts: number[]; section: number }): void {
    this.writer.rollback(mark.at);
    mark.counts.forEach((count, i) => (this.counts[i] = count));
    this.section = mark.section;
  }

  /** the message, with its section counts in the header */
  finish(): Buffer {
    this.counts.forEach((count, i) => this.writer.setU16(4 + 2 * i, count));
    return this.writer.toBuffer();
  }
}

export interface OutgoingMessage {
  id: number;
  flags: number;
  questions?: WireQuestion[];
  answers?: OutgoingRecord[];
  authorities?: OutgoingRecord[];
  additionals?: OutgoingRecord[];
  edns?: Edns;
}

/** A whole message in wire form. */
export function encodeMessage(message: OutgoingMessage): Buffer {
  const writer = new MessageWriter({ id: message.id, flags: message.flags });
  for (const question of message.questions ?? []) writer.question(question);
  for (const record of message.answers ?? []) writer.record('answer', record);
  for (const record of message.authorities ?? []) writer.record('authority', record);
  for (const record of message.additionals ?? []) writer.record('additional', record);
  if (message.edns) writer.edns(message.edns);
  return writer.finish();
}

/** a stored record's RDATA (canonical presentation form) as a value to write, by its type's `parse` */
export function typedRdata(type: string, rdata: string, origin: string): { definition: RecordTypeDefinition; value: unknown } {
  // the signer's types (RRSIG, NSEC, NSEC3, NSEC3PARAM) too: the primary serves them in a signed zone
  const definition = getServedRecordType(type);
  if (!definition) throw new Error(`unsupported record type ${type}`);
  const parsed = definition.parse(rdata, origin);
  if (!parsed.ok) throw new Error(`stored ${type} RDATA does not parse: ${parsed.problems.map((p) => p.message).join('; ')}`);
  return { definition, value: parsed.value };
}

/**
 * A stored record (owner relative to the zone, '@' the apex, or absolute when it ends with '.'; canonical
 * presentation RDATA) as a record to write, class IN.
 */
export function outgoingRecord(zone: string, record: { owner: string; type: string; rdata: string; ttl: number }): OutgoingRecord {
  const rdata = typedRdata(record.type, record.rdata, zone);
  const name = record.owner.endsWith('.') && !record.owner.endsWith('\\.') ? record.owner : ownerToFqdn(record.owner, zone);
  return { name, type: rdata.definition.code, klass: CLASS.IN, ttl: record.ttl, rdata };
}

/** a record's RDATA read from the wire in presentation form, by its type's reader; `unsupported`: a type not read here */
export function presentedRdata(message: Buffer, record: WireRecord): { rdata: string } | { unsupported: string } {
  const definition = getRecordType(`TYPE${record.type}`);
  if (!definition?.fromWire) return { unsupported: definition?.type ?? `TYPE${record.type}` };
  return { rdata: definition.format(readRdata(message, record, definition)) };
}
