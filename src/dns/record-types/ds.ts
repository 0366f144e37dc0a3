import { checkFieldCount, MAX_RDATA_OCTETS, parseHex, parseUnsigned, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface DSValue {
  keyTag: number;
  algorithm: number;
  digestType: number;
  digest: Buffer;
}

/** digest lengths of the registered digest types: SHA-1 (RFC 4034 §5.1.4), SHA-256 (RFC 4509 §2.2), SHA-384 (RFC 6605 §4) */
const DIGEST_OCTETS: Record<number, number> = { 1: 20, 2: 32, 4: 48 };

/** DS: delegation signer (RFC 4034 §5); the digest is shown in upper-case hex, one block */
export const DS: RecordTypeDefinition<DSValue> = {
  type: 'DS',
  code: 43,
  rfcs: ['RFC 4034 §5', 'RFC 4509 §2.2', 'RFC 6605 §4'],
  fields: [
    { name: 'key-tag', description: '0–65535', kind: 'int' },
    { name: 'algorithm', description: 'DNSSEC algorithm number, 0–255', kind: 'int' },
    { name: 'digest-type', description: '1 = SHA-1 (20 octets), 2 = SHA-256 (32), 4 = SHA-384 (48)', kind: 'int' },
    { name: 'digest', description: 'hexadecimal, blanks allowed between digits' },
  ],
  parse(rdata: string): ParseResult<DSValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('DS', split.fields, ['key-tag', 'algorithm', 'digest-type', 'digest'], problems, true))
      return { ok: false, problems };
    const f = split.fields.map((x) => x.raw);
    // RFC 4034 §5.1: key tag 16 bits, algorithm and digest type 8 bits each
    const keyTag = parseUnsigned(f[0], { type: 'DS', name: 'key tag', max: 65535 }, problems);
    const algorithm = parseUnsigned(f[1], { type: 'DS', name: 'algorithm', max: 255 }, problems);
    const digestType = parseUnsigned(f[2], { type: 'DS', name: 'digest type', max: 255 }, problems);
    // Only digest types that validators implement are accepted: 1 SHA-1, 2 SHA-256, 4 SHA-384 (RFC 8624 §3.3).
    // A DS whose digest type no validator supports makes the delegation insecure (RFC 4035 §5.2), 0 is reserved
    // (RFC 4034 Appendix A.2), 3 (GOST) is "MUST NOT" (RFC 8624 §3.3); Knot's kzonecheck refuses all of these.
    if (digestType !== undefined && DIGEST_OCTETS[digestType] === undefined) {
      problems.push(
        problem(
          'rdata',
          'DS_DIGEST_TYPE_UNSUPPORTED',
          `rdata: DS digest type ${digestType} is not supported; use 1 (SHA-1), 2 (SHA-256) or 4 (SHA-384)`,
        ),
      );
    }
    const digest = parseHex(f.slice(3), 'DS digest', problems);
    if (digest && digestType !== undefined && DIGEST_OCTETS[digestType] !== undefined && digest.length !== DIGEST_OCTETS[digestType]) {
      problems.push(
        problem(
          'rdata',
          'DS_DIGEST_LENGTH',
          `rdata: DS digest type ${digestType} needs a ${DIGEST_OCTETS[digestType]}-octet digest (${DIGEST_OCTETS[digestType] * 2} hex digits), got ${digest.length} octets`,
          DIGEST_OCTETS[digestType],
        ),
      );
    }
    if (digest && digest.length + 4 > MAX_RDATA_OCTETS) {
      problems.push(
        problem(
          'rdata',
          'RDATA_TOO_LONG',
          `rdata: DS digest is ${digest.length} octets; the RDATA limit is ${MAX_RDATA_OCTETS}`,
          MAX_RDATA_OCTETS,
        ),
      );
    }
    return finish(problems, () => ({ keyTag: keyTag!, algorithm: algorithm!, digestType: digestType!, digest: digest! }), DS.format);
  },
  format: (v) => `${v.keyTag} ${v.algorithm} ${v.digestType} ${v.digest.toString('hex').toUpperCase()}`,
  // PowerDNS 4.7 reads a digest back in lower case (so does CDS, which is DS's)
  powerDns: { present: (v) => DS.format(v).toLowerCase() },
  fromWire: (r) => ({ keyTag: r.u16(), algorithm: r.u8(), digestType: r.u8(), digest: r.rest() }),
  toWire: (v, w) => {
    w.u16(v.keyTag).u8(v.algorithm).u8(v.digestType).bytes(v.digest);
  },
};
