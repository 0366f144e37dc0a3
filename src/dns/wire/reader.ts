/**
 * Reading RDATA field by field (RFC 1035 §3.3 and each type's RFC): a record type's `fromWire` is given an
 * `RdataReader` over its RDATA inside the whole message, so a compressed name is followed into the message
 * (RFC 1035 §4.1.4; RFC 3597 §4: only the RFC 1035 types may compress names in RDATA, but reading pointers
 * anywhere costs nothing). Reading past RDLENGTH, or leaving octets unread, is a format error.
 */
import { WireFormatError } from './errors';
import { readName } from './name';

export { WireFormatError };

/** Reads one record's RDATA, octet by octet; reading past its RDLENGTH is a format error. */
export class RdataReader {
  private position: number;
  private readonly end: number;

  constructor(
    private readonly message: Buffer,
    start: number,
    length: number,
  ) {
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

  /** 48 bits, as TSIG's Time Signed (RFC 8945 §4.2) */
  u48(): number {
    const at = this.take(6);
    return this.message.readUInt16BE(at) * 2 ** 32 + this.message.readUInt32BE(at + 2);
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
    const { name, octets } = readName(this.message, this.position);
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
