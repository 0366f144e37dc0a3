/**
 * Reading DNS messages field by field (RFC 1035 §4.1), for what dns-packet 5.6.1 cannot decode: an UPDATE
 * (RFC 2136 §2) carries records with CLASS ANY or NONE and empty RDATA ("delete an RRset", "RRset exists"),
 * which dns-packet would read with the type's own decoder and misplace every later record. Here each record
 * is framed by its RDLENGTH, and RDATA is read by the record type's `fromWire` with `RdataReader`, which
 * follows compression pointers into the whole message (RFC 1035 §4.1.4; RFC 3597 §4: only the RFC 1035 types
 * may compress names in RDATA, but reading pointers anywhere costs nothing).
 */
import dnsPacket from 'dns-packet';
import './packet'; // installs the name codec that reads escaped labels (see packet.ts)

/** a message that cannot be read as one: answered FORMERR */
export class WireFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireFormatError';
  }
}

const nameCodec = (dnsPacket as unknown as { name: { decode: ((buf: Buffer, offset: number) => string) & { bytes: number } } }).name;

/** an absolute name in presentation form (`www.example.com.`, `.`) at `offset`, and the octets it takes there */
export function readWireName(message: Buffer, offset: number): { name: string; octets: number } {
  let decoded: string;
  try {
    decoded = nameCodec.decode(message, offset);
  } catch (error) {
    throw new WireFormatError((error as Error).message);
  }
  return { name: decoded === '.' ? '.' : `${decoded}.`, octets: nameCodec.decode.bytes };
}

/** Reads one record's RDATA, octet by octet; reading past its RDLENGTH is a format error. */
export class RdataReader {
  private position: number;
  private readonly end: number;

  constructor(private readonly message: Buffer, start: number, length: number) {
    this.position = start;
    this.end = start + length;
    if (this.end > message.length) throw new WireFormatError('RDATA runs past the message');
  }

  private take(octets: number): number {
    if (this.position + octets > this.end) throw new WireFormatError('RDATA is shorter than its type needs');
    const at = this.position;
    this.position += octets;
    return at;
  }

  u8(): number {
    return this.message[this.take(1)];
  }

  u16(): number {
    return this.message.readUInt16BE(this.take(2));
  }

  u32(): number {
    return this.message.readUInt32BE(this.take(4));
  }

  bytes(octets: number): Buffer {
    const at = this.take(octets);
    return Buffer.from(this.message.subarray(at, at + octets));
  }

  /** everything left of the RDATA */
  rest(): Buffer {
    return this.bytes(this.end - this.position);
  }

  /** a <character-string>: one length octet and that many octets (RFC 1035 §3.3) */
  characterString(): Buffer {
    return this.bytes(this.u8());
  }

  /** a domain name, possibly compressed; absolute presentation form */
  name(): string {
    if (this.position >= this.end) throw new WireFormatError('RDATA is shorter than its type needs');
    const { name, octets } = readWireName(this.message, this.position);
    this.take(octets);
    return name;
  }

  get remaining(): number {
    return this.end - this.position;
  }

  /** RDATA its type cannot read (a field value the type does not define) */
  malformed(reason: string): never {
    throw new WireFormatError(reason);
  }

  /** every octet must have been read: RDATA longer than its fields is malformed */
  finish(): void {
    if (this.position !== this.end) throw new WireFormatError('RDATA is longer than its fields');
  }
}

/** One resource record as framed on the wire; RDATA is read later, by its type, from `rdataStart`. */
export interface WireRecord {
  /** absolute, presentation form */
  name: string;
  type: number;
  klass: number;
  ttl: number;
  rdataStart: number;
  rdataLength: number;
}

export interface WireQuestion { name: string; type: number; klass: number }

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
    const { name, octets } = readWireName(message, position);
    position += octets;
    need(4);
    questions.push({ name, type: message.readUInt16BE(position), klass: message.readUInt16BE(position + 2) });
    position += 4;
  }
  const section = (count: number): WireRecord[] => {
    const records: WireRecord[] = [];
    for (let i = 0; i < count; i++) {
      const { name, octets } = readWireName(message, position);
      position += octets;
      need(10);
      const rdataLength = message.readUInt16BE(position + 8);
      const record = {
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
