import { formatIPv4, parseIPv4 } from '../ip';
import { checkFieldCount, parseUnsigned, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface L32Value {
  preference: number;
  locator: number[];
}

/** L32: ILNP 32-bit locator, written as an IPv4 address (RFC 6742 §2.2) */
export const L32: RecordTypeDefinition<L32Value> = {
  type: 'L32',
  code: 105,
  rfcs: ['RFC 6742 §2.2'],
  fields: [
    { name: 'preference', description: '0–65535, lower is preferred', kind: 'int' },
    { name: 'locator32', description: 'dotted-quad, as an IPv4 address' },
  ],
  parse(rdata: string): ParseResult<L32Value> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('L32', split.fields, ['preference', 'locator32'], problems)) return { ok: false, problems };
    const preference = parseUnsigned(split.fields[0].raw, { type: 'L32', name: 'preference', max: 65535 }, problems);
    const locator = parseIPv4(split.fields[1].raw);
    if (!locator)
      problems.push(
        problem('rdata', 'INVALID_IPV4', `rdata: L32 locator ${JSON.stringify(split.fields[1].raw)} is not a dotted-quad (RFC 6742 §2.2)`),
      );
    return finish(problems, () => ({ preference: preference!, locator: locator! }), L32.format);
  },
  format: (v) => `${v.preference} ${formatIPv4(v.locator)}`,
  // RFC 6742 §2.2: PREFERENCE (16), Locator32 (an IPv4 address's 32 bits)
  fromWire: (r) => ({ preference: r.u16(), locator: [...r.bytes(4)] }),
  toWire: (v, w) => {
    w.u16(v.preference).bytes(v.locator);
  },
};
