/**
 * The one codec of domain names on the wire (RFC 1035 §3.1): every name the service reads from or writes to a
 * DNS message, an RDATA or a digest goes through here.
 *
 * - text side: the canonical presentation form of src/dns/name.ts (RFC 1035 §5.1 escapes: `a\.b` is one label
 *   holding a dot, `\200` one octet), absolute with its trailing dot (`www.example.com.`, `.` for the root);
 * - reading follows compression pointers (RFC 1035 §4.1.4), each strictly backwards from the lowest octet
 *   read so far, so no pointer loop can keep it going, and refuses a name over 255 octets (RFC 1035 §2.3.4);
 * - writing is uncompressed here; compression in messages is the writer's (writer.ts), which calls
 *   `wireLabels` and keeps the dictionary of the names already written;
 * - the canonical form (RFC 4034 §6.2): uncompressed, ASCII letters lower-cased.
 */
import { labelTextOf, MAX_LABEL_OCTETS, MAX_NAME_OCTETS, nameLabels } from '../name';
import { isEscapedAt } from '../presentation';
import { WireFormatError } from './errors';

/** 'www.example.com.' -> 'www.example.com', '.' and '' -> '' : the labels' text without the root */
function bare(absoluteName: string): string {
  if (absoluteName === '.' || absoluteName === '') return '';
  // `a\..`: the dot before the final one is escaped, part of the label
  if (absoluteName.endsWith('.') && !isEscapedAt(absoluteName, absoluteName.length - 1)) return absoluteName.slice(0, -1);
  return absoluteName;
}

/**
 * Whether a name (no trailing dot) is written without escapes, in labels of 1–63 octets: its wire form is then
 * its own text with a length octet in place of each dot, one before the first label and the root octet at the end.
 */
function isPlainName(name: string): boolean {
  if (name.length > 253 || name.length === 0) return false;
  let labelLength = 0;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x2e) {
      if (labelLength === 0) return false;
      labelLength = 0;
    } else if (c < 0x21 || c > 0x7e || c === 0x5c || ++labelLength > MAX_LABEL_OCTETS) return false;
  }
  return labelLength > 0;
}

/**
 * The labels of a name written without escapes (the common case), as text, root excluded; undefined when the
 * name needs the escape parser. Each label is 1–63 printable ASCII characters, one octet each, and the name
 * fits in 255 octets (isPlainName).
 */
export function plainLabels(absoluteName: string): string[] | undefined {
  const name = bare(absoluteName);
  if (name === '') return [];
  return isPlainName(name) ? name.split('.') : undefined;
}

/**
 * The labels of a name in presentation form, as octets, root excluded. A plain name (the common case: an
 * AXFR writes one per record) is split without the escape parser, which was a quarter of a transfer's CPU.
 */
export function wireLabels(absoluteName: string): Buffer[] {
  const name = bare(absoluteName);
  if (name === '') return [];
  const labels = isPlainName(name) ? name.split('.').map((l) => Buffer.from(l, 'latin1')) : nameLabels(name);
  let total = 1;
  for (const label of labels) {
    if (label.length === 0 || label.length > MAX_LABEL_OCTETS)
      throw new RangeError(`the name ${absoluteName} has a label of ${label.length} octets (RFC 1035 §2.3.4: 1–63)`);
    total += label.length + 1;
  }
  if (total > MAX_NAME_OCTETS)
    throw new RangeError(`the name ${absoluteName} is ${total} octets in wire form (RFC 1035 §2.3.4: at most 255)`);
  return labels;
}

/** ASCII letters lower-cased, every other octet as it is (RFC 4034 §6.2, RFC 4343 §2: only A–Z fold) */
export function lowercaseLabel(label: Buffer): Buffer {
  let upper = false;
  for (const b of label)
    if (b >= 0x41 && b <= 0x5a) {
      upper = true;
      break;
    }
  if (!upper) return label;
  return Buffer.from(label.map((b) => (b >= 0x41 && b <= 0x5a ? b + 0x20 : b)));
}

/** uncompressed wire form of an absolute name (RFC 1035 §3.1), letter case kept */
export function nameToWire(absoluteName: string): Buffer {
  const name = bare(absoluteName);
  if (name !== '' && isPlainName(name)) {
    // its own text, a length octet in place of each dot and one before the first label, the root octet at
    // the end: no buffer per label (a signed write builds a few of these, a zone's signing one per RRset)
    const wire = Buffer.allocUnsafe(name.length + 2);
    let lengthAt = 0;
    for (let i = 0; i < name.length; i++) {
      const c = name.charCodeAt(i);
      if (c === 0x2e) {
        wire[lengthAt] = i - lengthAt;
        lengthAt = i + 1;
      } else wire[i + 1] = c;
    }
    wire[lengthAt] = name.length - lengthAt;
    wire[name.length + 1] = 0;
    return wire;
  }
  const labels = wireLabels(absoluteName);
  const wire = Buffer.allocUnsafe(labels.reduce((n, l) => n + l.length + 1, 1));
  let at = 0;
  for (const label of labels) {
    wire[at++] = label.length;
    label.copy(wire, at);
    at += label.length;
  }
  wire[at] = 0;
  return wire;
}

/** octets of the name's uncompressed wire form, without building it for the common case */
export function nameWireLength(absoluteName: string): number {
  const name = bare(absoluteName);
  if (name === '') return 1;
  // a length octet where each dot is and one before the first label, the root octet at the end
  if (isPlainName(name)) return name.length + 2;
  return nameToWire(absoluteName).length;
}

/**
 * the canonical wire form of a name (RFC 4034 §6.2): uncompressed, ASCII letters lower-cased. A length octet
 * is at most 63, below 'A' (0x41), so folding every octet in A–Z touches letters only.
 */
export function canonicalNameWire(absoluteName: string): Buffer {
  const wire = nameToWire(absoluteName);
  for (let i = 0; i < wire.length; i++) if (wire[i] >= 0x41 && wire[i] <= 0x5a) wire[i] += 0x20;
  return wire;
}

/**
 * Reads the (possibly compressed) name at `offset` of `message`: its presentation form, absolute, letter case
 * as sent, and the octets it takes at `offset` (a pointer counts 2). Throws WireFormatError on a label type
 * other than 00 and 11, a pointer that does not point backwards (which is what makes loops impossible), a
 * name running past the message, or one over 255 octets.
 */
export function readName(message: Buffer, offset: number): { name: string; octets: number } {
  const labels: string[] = [];
  let position = offset;
  let consumed = -1;
  /** a pointer must lead before every octet read so far: each jump then moves strictly backwards */
  let lowest = offset;
  let total = 1;
  for (;;) {
    if (position >= message.length) throw new WireFormatError('a name runs past the message');
    const length = message[position];
    if (length === 0) {
      if (consumed < 0) consumed = position + 1 - offset;
      break;
    }
    const kind = length & 0xc0;
    if (kind === 0xc0) {
      if (position + 1 >= message.length) throw new WireFormatError('a name runs past the message');
      const target = message.readUInt16BE(position) & 0x3fff;
      if (target >= lowest) throw new WireFormatError('a compression pointer does not point backwards (RFC 1035 §4.1.4)');
      if (consumed < 0) consumed = position + 2 - offset;
      position = target;
      lowest = target;
      continue;
    }
    // 01 and 10 are the extended and the (retired) binary label types: not DNS names we read (RFC 6891 §5)
    if (kind !== 0) throw new WireFormatError(`a label of type ${kind >> 6} (only 0 and compression pointers are read)`);
    if (position + 1 + length > message.length) throw new WireFormatError('a name runs past the message');
    total += length + 1;
    if (total > MAX_NAME_OCTETS) throw new WireFormatError('a name over 255 octets (RFC 1035 §2.3.4)');
    labels.push(labelTextOf(message, position + 1, position + 1 + length));
    position += length + 1;
  }
  return { name: labels.length ? `${labels.join('.')}.` : '.', octets: consumed };
}
