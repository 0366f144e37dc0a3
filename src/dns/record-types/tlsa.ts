import { checkFieldCount, MAX_RDATA_OCTETS, parseHex, parseUnsigned, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface TLSAValue {
  usage: number;
  selector: number;
  matchingType: number;
  data: Buffer;
}

/** matching types with a fixed length: 1 = SHA-256, 2 = SHA-512 (RFC 6698 §2.1.3) */
const DATA_OCTETS: Record<number, number> = { 1: 32, 2: 64 };

/** TLSA: DANE certificate association (RFC 6698 §2); data shown in upper-case hex */
export const TLSA: RecordTypeDefinition<TLSAValue> = {
  type: 'TLSA',
  code: 52,
  rfcs: ['RFC 6698 §2', 'RFC 7218'],
  fields: [
    { name: 'usage', description: '0–3: PKIX-TA, PKIX-EE, DANE-TA, DANE-EE (RFC 7218)', kind: 'int' },
    { name: 'selector', description: '0 = full certificate, 1 = SubjectPublicKeyInfo', kind: 'int' },
    { name: 'matching-type', description: '0 = exact, 1 = SHA-256 (32 octets), 2 = SHA-512 (64 octets)', kind: 'int' },
    { name: 'certificate-association-data', description: 'hexadecimal, blanks allowed between digits' },
  ],
  parse(rdata: string): ParseResult<TLSAValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('TLSA', split.fields, ['usage', 'selector', 'matching-type', 'certificate-association-data'], problems, true))
      return { ok: false, problems };
    const f = split.fields.map((x) => x.raw);
    // RFC 6698 §2.1.1–§2.1.3 and its IANA registries: usage 0–3, selector 0–1, matching type 0–2 are defined
    const usage = parseUnsigned(f[0], { type: 'TLSA', name: 'usage', max: 3 }, problems);
    const selector = parseUnsigned(f[1], { type: 'TLSA', name: 'selector', max: 1 }, problems);
    const matchingType = parseUnsigned(f[2], { type: 'TLSA', name: 'matching type', max: 2 }, problems);
    const data = parseHex(f.slice(3), 'TLSA certificate association data', problems);
    if (data && matchingType !== undefined && DATA_OCTETS[matchingType] !== undefined && data.length !== DATA_OCTETS[matchingType]) {
      problems.push(
        problem(
          'rdata',
          'TLSA_DATA_LENGTH',
          `rdata: TLSA matching type ${matchingType} needs ${DATA_OCTETS[matchingType]} octets (${DATA_OCTETS[matchingType] * 2} hex digits), got ${data.length}`,
          DATA_OCTETS[matchingType],
        ),
      );
    }
    if (data && data.length + 3 > MAX_RDATA_OCTETS) {
      problems.push(
        problem(
          'rdata',
          'RDATA_TOO_LONG',
          `rdata: TLSA data is ${data.length} octets; the RDATA limit is ${MAX_RDATA_OCTETS}`,
          MAX_RDATA_OCTETS,
        ),
      );
    }
    return finish(problems, () => ({ usage: usage!, selector: selector!, matchingType: matchingType!, data: data! }), TLSA.format);
  },
  format: (v) => `${v.usage} ${v.selector} ${v.matchingType} ${v.data.toString('hex').toUpperCase()}`,
  // PowerDNS 4.7 reads the data back in lower-case hex (so does SMIMEA, which is TLSA's)
  powerDns: { present: (v) => TLSA.format(v).toLowerCase() },
  fromWire: (r) => ({ usage: r.u8(), selector: r.u8(), matchingType: r.u8(), data: r.rest() }),
  toWire: (v, w) => {
    w.u8(v.usage).u8(v.selector).u8(v.matchingType).bytes(v.data);
  },
};
