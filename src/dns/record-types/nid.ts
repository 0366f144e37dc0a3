import { checkFieldCount, parseUnsigned, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface Locator64Value {
  preference: number;
  locator: Buffer;
}

/** a 64-bit ILNP value written as four groups of four hex digits, `0014:4fff:ff20:ee64` (RFC 6742 §2.1.2) */
export function locator64Type(type: string, code: number, rfcs: string[], name: string): RecordTypeDefinition<Locator64Value> {
  const definition: RecordTypeDefinition<Locator64Value> = {
    type,
    code,
    rfcs,
    fields: [
      { name: 'preference', description: '0–65535, lower is preferred', kind: 'int' },
      { name, description: 'four groups of four hexadecimal digits separated by colons' },
    ],
    parse(rdata: string): ParseResult<Locator64Value> {
      const split = splitFields(rdata);
      if (!split.ok) return split;
      const problems: Problem[] = [];
      if (!checkFieldCount(type, split.fields, ['preference', name], problems)) return { ok: false, problems };
      const preference = parseUnsigned(split.fields[0].raw, { type, name: 'preference', max: 65535 }, problems);
      const text = split.fields[1].raw;
      if (!/^[0-9A-Fa-f]{4}(:[0-9A-Fa-f]{4}){3}$/.test(text)) {
        problems.push(
          problem(
            'rdata',
            `${type}_${name.toUpperCase().replace(/-/g, '_')}_INVALID`,
            `rdata: ${type} ${name} ${JSON.stringify(text)} is not four groups of four hexadecimal digits (RFC 6742 §2.1.2)`,
          ),
        );
      }
      return finish(problems, () => ({ preference: preference!, locator: Buffer.from(text.replace(/:/g, ''), 'hex') }), definition.format);
    },
    format: (v) => `${v.preference} ${v.locator.toString('hex').match(/.{4}/g)!.join(':')}`,
    // PowerDNS 4.7 reads the locator back in upper-case hex (L64's too)
    powerDns: { present: (v) => definition.format(v).toUpperCase() },
    fromWire: (r) => ({ preference: r.u16(), locator: r.bytes(8) }),
    toWire: (v, w) => {
      w.u16(v.preference).bytes(v.locator);
    },
  };
  return definition;
}

/** NID: ILNP node identifier (RFC 6742 §2.1) */
export const NID = locator64Type('NID', 104, ['RFC 6742 §2.1'], 'node-id');
