import { formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from '../ip';
import { MAX_RDATA_OCTETS, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface APLItem {
  negate: boolean;
  family: 1 | 2;
  prefix: number;
  address: number[];
}
export interface APLValue {
  items: APLItem[];
}

/**
 * APL: lists of address prefixes (RFC 3123 §4), items `[!]afi:address/prefix` with address family 1 (IPv4)
 * or 2 (IPv6); an empty list is allowed. On the wire the address loses its trailing zero octets (§4.1).
 */
export const APL: RecordTypeDefinition<APLValue> = {
  type: 'APL',
  code: 42,
  rfcs: ['RFC 3123 §4', 'RFC 3123 §5'],
  fields: [{ name: 'items', description: '[!]afi:address/prefix, blank-separated: 1:192.0.2.0/24 !2:2001:db8::/32', optional: true }],
  parse(rdata: string): ParseResult<APLValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    const items: APLItem[] = [];
    for (const { raw } of split.fields) {
      const m = /^(!?)([12]):([^/]+)\/([0-9]{1,3})$/.exec(raw);
      const address = m ? (m[2] === '1' ? parseIPv4(m[3]) : parseIPv6(m[3])) : undefined;
      const max = m?.[2] === '1' ? 32 : 128;
      if (!m || !address || Number(m[4]) > max) {
        problems.push(
          problem(
            'rdata',
            'APL_ITEM_INVALID',
            `rdata: APL item ${JSON.stringify(raw)} is not [!]afi:address/prefix with afi 1 (IPv4, prefix 0–32) or 2 (IPv6, prefix 0–128) (RFC 3123 §5)`,
          ),
        );
        continue;
      }
      items.push({ negate: m[1] === '!', family: m[2] === '1' ? 1 : 2, prefix: Number(m[4]), address });
    }
    const wire = items.reduce((n, item) => n + 4 + trimmed(item.address).length, 0);
    if (wire > MAX_RDATA_OCTETS)
      problems.push(
        problem('rdata', 'RDATA_TOO_LONG', `rdata: APL data is ${wire} octets; the limit is ${MAX_RDATA_OCTETS}`, MAX_RDATA_OCTETS),
      );
    return finish(problems, () => ({ items }), APL.format);
  },
  format: (v) =>
    v.items
      .map((i) => `${i.negate ? '!' : ''}${i.family}:${i.family === 1 ? formatIPv4(i.address) : formatIPv6(i.address)}/${i.prefix}`)
      .join(' '),
  // RFC 3123 §4: ADDRESSFAMILY, PREFIX, N | AFDLENGTH, then AFDLENGTH octets with the trailing zeros left out
  fromWire: (r) => {
    const items: APLItem[] = [];
    while (r.remaining > 0) {
      const family = r.u16();
      const prefix = r.u8();
      const lengthOctet = r.u8();
      const part = r.bytes(lengthOctet & 0x7f);
      const size = family === 1 ? 4 : 16;
      const address = [...part, ...new Array(Math.max(0, size - part.length)).fill(0)];
      items.push({ negate: (lengthOctet & 0x80) !== 0, family: family as 1 | 2, prefix, address });
    }
    return { items };
  },
  toWire: (v, w) => {
    for (const i of v.items) {
      const part = trimmed(i.address);
      w.u16(i.family)
        .u8(i.prefix)
        .u8((i.negate ? 0x80 : 0) | part.length)
        .bytes(part);
    }
  },
};

/** RFC 3123 §4.1: trailing zero octets of the address are not sent */
function trimmed(address: number[]): Buffer {
  let end = address.length;
  while (end > 0 && address[end - 1] === 0) end--;
  return Buffer.from(address.slice(0, end));
}
