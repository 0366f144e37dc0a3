import { formatIPv6, parseIPv6 } from '../ip';
import { checkFieldCount, shorten, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { ParseResult, RecordTypeDefinition } from './record-type';

export interface AAAAValue {
  address: number[];
}

/** AAAA: one IPv6 address (RFC 3596 §2.4); any RFC 4291 §2.2 text form in, RFC 5952 form out */
export const AAAA: RecordTypeDefinition<AAAAValue> = {
  type: 'AAAA',
  code: 28,
  rfcs: ['RFC 3596 §2', 'RFC 4291 §2.2', 'RFC 5952 §4'],
  fields: [{ name: 'address', description: 'IPv6 address in any RFC 4291 text form; shown in RFC 5952 canonical form' }],
  parse(rdata: string): ParseResult<AAAAValue> {
    // a bare address (hex digits, colons, dots: nothing the field split reads) is its one field as it stands:
    // read at once, without the split's list and objects, as A does
    const bare = parseIPv6(rdata);
    if (bare) {
      const value = { address: bare };
      return { ok: true, value, canonical: AAAA.format(value) };
    }
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('AAAA', split.fields, ['address'], problems)) return { ok: false, problems };
    const raw = split.fields[0].raw;
    const address = parseIPv6(raw);
    if (!address) {
      return {
        ok: false,
        problems: [problem('rdata', 'INVALID_IPV6', `rdata: ${shorten(raw)} is not an IPv6 address (RFC 4291 §2.2 text form)`)],
      };
    }
    const value = { address };
    return { ok: true, value, canonical: AAAA.format(value) };
  },
  format: (value) => formatIPv6(value.address),
  fromWire: (r) => ({ address: [...r.bytes(16)] }),
  toWire: (value, w) => {
    w.bytes(value.address);
  },
};
