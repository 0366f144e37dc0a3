import { checkFieldCount, MAX_RDATA_OCTETS, parseBase64, parseUnsigned, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface DNSKEYValue {
  flags: number;
  protocol: number;
  algorithm: number;
  key: Buffer;
}

/**
 * The DNSKEY RDATA (RFC 4034 §2), shared with CDNSKEY (RFC 7344 §3.2). The key may be written in several
 * blank-separated base64 pieces (RFC 4034 §2.2); it is stored as one block.
 */
export function dnskeyLike(type: string, code: number, rfcs: string[]): RecordTypeDefinition<DNSKEYValue> {
  const definition: RecordTypeDefinition<DNSKEYValue> = {
    type,
    code,
    rfcs,
    fields: [
      { name: 'flags', description: '0–65535: 256 zone key, 257 zone key + secure entry point (RFC 4034 §2.1.1)', kind: 'int' },
      { name: 'protocol', description: 'always 3 (RFC 4034 §2.1.2)', kind: 'int' },
      { name: 'algorithm', description: 'DNSSEC algorithm number, 0–255', kind: 'int' },
      { name: 'public-key', description: 'base64, blanks allowed between pieces' },
    ],
    parse(rdata: string): ParseResult<DNSKEYValue> {
      const split = splitFields(rdata);
      if (!split.ok) return split;
      const problems: Problem[] = [];
      if (!checkFieldCount(type, split.fields, ['flags', 'protocol', 'algorithm', 'public-key'], problems, true))
        return { ok: false, problems };
      const f = split.fields.map((x) => x.raw);
      const flags = parseUnsigned(f[0], { type, name: 'flags', max: 65535 }, problems);
      const protocol = parseUnsigned(f[1], { type, name: 'protocol', max: 255 }, problems);
      // RFC 4034 §2.1.2: "The Protocol Field MUST have value 3"; both checkers refuse other values
      if (protocol !== undefined && protocol !== 3)
        problems.push(problem('rdata', `${type}_PROTOCOL`, `rdata: ${type} protocol must be 3 (RFC 4034 §2.1.2), got ${protocol}`, 3));
      const algorithm = parseUnsigned(f[2], { type, name: 'algorithm', max: 255 }, problems);
      const key = parseBase64(f.slice(3).join(''), `${type} public key`, problems);
      if (key && key.length + 4 > MAX_RDATA_OCTETS)
        problems.push(
          problem(
            'rdata',
            'RDATA_TOO_LONG',
            `rdata: ${type} key is ${key.length} octets; the RDATA limit is ${MAX_RDATA_OCTETS}`,
            MAX_RDATA_OCTETS,
          ),
        );
      return finish(problems, () => ({ flags: flags!, protocol: protocol!, algorithm: algorithm!, key: key! }), definition.format);
    },
    format: (v) => `${v.flags} ${v.protocol} ${v.algorithm} ${v.key.toString('base64')}`,
    fromWire: (r) => ({ flags: r.u16(), protocol: r.u8(), algorithm: r.u8(), key: r.rest() }),
    toWire: (v, w) => {
      w.u16(v.flags).u8(v.protocol).u8(v.algorithm).bytes(v.key);
    },
  };
  return definition;
}

/** DNSKEY: a zone's public key (RFC 4034 §2) */
export const DNSKEY = dnskeyLike('DNSKEY', 48, ['RFC 4034 §2']);
