/**
 * Writing wire forms: RDATA (each record type's `toWire`), whole records and messages. One growable buffer
 * with the fields of RFC 1035 §3.3 (integers in network order, <character-string>s, domain names).
 *
 * How a name is written is the writer's, not the record type's: whoever frames the RDATA says, per record,
 * whether its names may be compressed (RFC 3597 §4: in messages, only in the RDATA of the RFC 1035 types) and
 * whether they are lower-cased (RFC 4034 §6.2 as updated by RFC 6840 §5.1: the canonical form, for the
 * listed types only). A type's `toWire` just calls `name()`; the rules live in rules.ts.
 */
import { lowercaseLabel, plainLabels, wireLabels } from './name';

/** compression pointers hold 14 bits of offset (RFC 1035 §4.1.4): names further on cannot be pointed to */
const MAX_POINTER_OFFSET = 0x3fff;

export interface NameRules {
  /** names may be compressed against the names already written (a message writer only) */
  compress: boolean;
  /** ASCII letters lower-cased (the canonical form, RFC 4034 §6.2) */
  lowercase: boolean;
}

const PLAIN: NameRules = { compress: false, lowercase: false };

export class WireWriter {
  private buffer: Buffer;
  private position = 0;
  /** the suffixes of names written so far (`<offset of the rest>:<first label>`) and where each starts: compression targets */
  private readonly written: Map<string, number> | undefined;
  /** how `name()` writes: set by the framing code for each RDATA (see the file's comment) */
  nameRules: NameRules = PLAIN;

  /** `compression`: this writer builds a message, whose names may point at earlier ones (RFC 1035 §4.1.4) */
  constructor(options: { compression?: boolean; size?: number } = {}) {
    this.buffer = Buffer.allocUnsafe(options.size ?? 512);
    this.written = options.compression ? new Map() : undefined;
  }

  get length(): number {
    return this.position;
  }

  /**
   * Makes room for `octets` and returns where they go. Call it before reading `this.buffer`: it may replace
   * the buffer with a bigger one.
   */
  private room(octets: number): number {
    const at = this.position;
    if (at + octets > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, at + octets));
      this.buffer.copy(grown, 0, 0, at);
      this.buffer = grown;
    }
    this.position += octets;
    return at;
  }

  u8(value: number): this {
    const at = this.room(1);
    this.buffer.writeUInt8(value, at);
    return this;
  }

  u16(value: number): this {
    const at = this.room(2);
    this.buffer.writeUInt16BE(value, at);
    return this;
  }

  u32(value: number): this {
    const at = this.room(4);
    this.buffer.writeUInt32BE(value, at);
    return this;
  }

  /** 48 bits, as TSIG's Time Signed (RFC 8945 §4.2) */
  u48(value: number): this {
    const at = this.room(6);
    this.buffer.writeUInt16BE(Math.floor(value / 2 ** 32), at);
    this.buffer.writeUInt32BE(value % 2 ** 32, at + 2);
    return this;
  }

  bytes(octets: Uint8Array | readonly number[]): this {
    const at = this.room(octets.length);
    this.buffer.set(octets, at);
    return this;
  }

  /** a <character-string>: one length octet and at most 255 octets (RFC 1035 §3.3) */
  characterString(octets: Uint8Array): this {
    if (octets.length > 255) throw new RangeError(`a <character-string> of ${octets.length} octets (RFC 1035 §3.3: at most 255)`);
    return this.u8(octets.length).bytes(octets);
  }

  /**
   * An absolute domain name in presentation form, under the writer's current `nameRules`: compressed against
   * the names already written (RFC 1035 §4.1.4, suffixes compared octet for octet, so letter case is kept as
   * each name was given), and/or lower-cased (RFC 4034 §6.2).
   */
  name(absoluteName: string, rules: NameRules = this.nameRules): this {
    const plain = plainLabels(absoluteName);
    let labels: string[];
    if (plain) {
      // printable ASCII, one octet a character: the text is the octets (toLowerCase folds A–Z only here)
      labels = rules.lowercase ? plain.map((l) => l.toLowerCase()) : plain;
    } else {
      labels = wireLabels(absoluteName).map((l) => (rules.lowercase ? lowercaseLabel(l) : l).toString('latin1'));
    }
    const dictionary = rules.compress ? this.written : undefined;
    if (!dictionary) {
      for (const label of labels) this.label(label);
      return this.u8(0);
    }
    // a suffix is known by its first label and where the rest of it is (`<offset>:<label>`, -1 the root):
    // from the root end, the longest suffix already written...
    let known = labels.length;
    let rest = -1;
    for (; known > 0; known--) {
      const at = dictionary.get(`${rest}:${labels[known - 1]}`);
      if (at === undefined) break;
      rest = at;
    }
    // ...then the labels before it, each a new suffix to point at later (RFC 1035 §4.1.4: 14-bit offsets)
    const starts: number[] = new Array(known);
    for (let i = 0; i < known; i++) {
      starts[i] = this.position;
      this.label(labels[i]);
    }
    for (let i = known - 1; i >= 0; i--) {
      if (starts[i] > MAX_POINTER_OFFSET) continue;
      dictionary.set(`${i === known - 1 ? rest : starts[i + 1]}:${labels[i]}`, starts[i]);
    }
    return known < labels.length ? this.u16(0xc000 | rest) : this.u8(0);
  }

  /** one label: its length octet, then its octets (a latin1 string holds one octet a character) */
  private label(label: string): void {
    const at = this.room(1 + label.length);
    this.buffer[at] = label.length;
    this.buffer.write(label, at + 1, label.length, 'latin1');
  }

  /** where a length field goes: written 0 now, filled by `endLength` with the octets written since */
  beginLength(): number {
    const at = this.position;
    this.u16(0);
    return at;
  }

  endLength(at: number): void {
    const length = this.position - at - 2;
    if (length > 0xffff) throw new RangeError(`RDATA of ${length} octets (RFC 1035 §3.2.1: RDLENGTH is 16 bits)`);
    this.buffer.writeUInt16BE(length, at);
  }

  /** overwrites a 16-bit field written earlier (a section count) */
  setU16(at: number, value: number): void {
    this.buffer.writeUInt16BE(value, at);
  }

  /** where the writer is, to go back to (a record that did not fit a message) */
  mark(): number {
    return this.position;
  }

  /** forgets everything written from `mark` on, compression targets included */
  rollback(mark: number): void {
    this.position = mark;
    if (this.written) for (const [key, at] of this.written) if (at >= mark) this.written.delete(key);
  }

  /** a copy of the octets written */
  toBuffer(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.position));
  }
}
