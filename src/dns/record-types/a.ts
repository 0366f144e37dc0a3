import { formatIPv4, parseIPv4 } from '../ip';
import { checkFieldCount, shorten, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { ParseResult, RecordTypeDefinition } from './record-type';

export interface AValue {
  address: number[];
}

/** A: one IPv4 address (RFC 1035 §3.4.1), written as a dotted quad */
export const A: RecordTypeDefinition<AValue> = {
  type: 'A',
  code: 1,
  rfcs: ['RFC 1035 §3.4.1'],
  fields: [{ name: 'address', description: 'IPv4 address in dotted-quad form, e.g. 192.0.2.1 (no leading zeros)' }],
  parse(rdata: string): ParseResult<AValue> {
    // a bare dotted quad, nearly every A record, is its one field as it stands: read at once, without the
    // field split's list and objects (text with anything else, spaces or a comment or quotes, is split below)
    const bare = parseIPv4(rdata);
    if (bare) return { ok: true, value: { address: bare }, canonical: rdata };
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('A', split.fields, ['address'], problems)) return { ok: false, problems };
    const raw = split.fields[0].raw;
    const address = parseIPv4(raw);
    if (!address) {
      return {
        ok: false,
        problems: [
          problem(
            'rdata',
            'INVALID_IPV4',
            `rdata: ${shorten(raw)} is not an IPv4 address in dotted-quad form (four numbers 0–255, no leading zeros)`,
          ),
        ],
      };
    }
    // the text parseIPv4 takes (four numbers 0–255, no leading zero, dots between) is already the canonical
    // dotted quad that format writes: it is the canonical form as it is, not written again
    return { ok: true, value: { address }, canonical: raw };
  },
  format: (value) => formatIPv4(value.address),
  fromWire: (r) => ({ address: [...r.bytes(4)] }),
  toWire: (value, w) => {
    w.bytes(value.address);
  },
};
