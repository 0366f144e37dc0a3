import { checkFieldCount, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface EUIValue {
  address: Buffer;
}

/** an EUI written as hyphen-separated pairs of hex digits, `00-00-5e-00-53-2a` (RFC 7043 §3.2, §4.2) */
export function euiType(type: string, code: number, octets: number, rfc: string): RecordTypeDefinition<EUIValue> {
  const pattern = new RegExp(`^[0-9A-Fa-f]{2}(-[0-9A-Fa-f]{2}){${octets - 1}}$`);
  const definition: RecordTypeDefinition<EUIValue> = {
    type,
    code,
    rfcs: [rfc],
    fields: [{ name: 'address', description: `${octets} pairs of hexadecimal digits separated by hyphens` }],
    parse(rdata: string): ParseResult<EUIValue> {
      const split = splitFields(rdata);
      if (!split.ok) return split;
      const problems: Problem[] = [];
      if (!checkFieldCount(type, split.fields, ['address'], problems)) return { ok: false, problems };
      const text = split.fields[0].raw;
      if (!pattern.test(text))
        problems.push(
          problem(
            'rdata',
            `${type}_ADDRESS_INVALID`,
            `rdata: ${type} address ${JSON.stringify(text)} is not ${octets} hyphen-separated pairs of hexadecimal digits (${rfc})`,
          ),
        );
      return finish(problems, () => ({ address: Buffer.from(text.replace(/-/g, ''), 'hex') }), definition.format);
    },
    format: (v) => v.address.toString('hex').match(/.{2}/g)!.join('-'),
    fromWire: (r) => ({ address: r.bytes(octets) }),
    toWire: (v, w) => {
      w.bytes(v.address);
    },
  };
  return definition;
}

/** EUI48: a 48-bit Extended Unique Identifier (RFC 7043 §3) */
export const EUI48 = euiType('EUI48', 108, 6, 'RFC 7043 §3');
