import { checkFieldCount, MAX_RDATA_OCTETS, parseHex, parseUnsigned, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface SSHFPValue {
  algorithm: number;
  fingerprintType: number;
  fingerprint: Buffer;
}

/** fingerprint lengths: 1 = SHA-1 (RFC 4255 §3.1.2), 2 = SHA-256 (RFC 6594 §4) */
const FINGERPRINT_OCTETS: Record<number, number> = { 1: 20, 2: 32 };

/** SSHFP: SSH host key fingerprint (RFC 4255 §3); shown in upper-case hex */
export const SSHFP: RecordTypeDefinition<SSHFPValue> = {
  type: 'SSHFP',
  code: 44,
  rfcs: ['RFC 4255 §3', 'RFC 6594', 'RFC 7479', 'RFC 8709'],
  fields: [
    { name: 'algorithm', description: 'key algorithm, 0–255 (1 RSA, 2 DSA, 3 ECDSA, 4 Ed25519, 6 Ed448)', kind: 'int' },
    { name: 'fingerprint-type', description: '0–255 (1 = SHA-1, 20 octets; 2 = SHA-256, 32 octets)', kind: 'int' },
    { name: 'fingerprint', description: 'hexadecimal, blanks allowed between digits' },
  ],
  parse(rdata: string): ParseResult<SSHFPValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('SSHFP', split.fields, ['algorithm', 'fingerprint-type', 'fingerprint'], problems, true))
      return { ok: false, problems };
    const f = split.fields.map((x) => x.raw);
    // RFC 4255 §3.1: algorithm and fingerprint type are one octet each
    const algorithm = parseUnsigned(f[0], { type: 'SSHFP', name: 'algorithm', max: 255 }, problems);
    const fingerprintType = parseUnsigned(f[1], { type: 'SSHFP', name: 'fingerprint type', max: 255 }, problems);
    const fingerprint = parseHex(f.slice(2), 'SSHFP fingerprint', problems);
    const need = fingerprintType === undefined ? undefined : FINGERPRINT_OCTETS[fingerprintType];
    if (fingerprint && need !== undefined && fingerprint.length !== need) {
      problems.push(
        problem(
          'rdata',
          'SSHFP_FINGERPRINT_LENGTH',
          `rdata: SSHFP fingerprint type ${fingerprintType} needs ${need} octets (${need * 2} hex digits), got ${fingerprint.length}`,
          need,
        ),
      );
    }
    if (fingerprint && fingerprint.length + 2 > MAX_RDATA_OCTETS) {
      problems.push(
        problem(
          'rdata',
          'RDATA_TOO_LONG',
          `rdata: SSHFP fingerprint is ${fingerprint.length} octets; the RDATA limit is ${MAX_RDATA_OCTETS}`,
          MAX_RDATA_OCTETS,
        ),
      );
    }
    return finish(problems, () => ({ algorithm: algorithm!, fingerprintType: fingerprintType!, fingerprint: fingerprint! }), SSHFP.format);
  },
  format: (v) => `${v.algorithm} ${v.fingerprintType} ${v.fingerprint.toString('hex').toUpperCase()}`,
  // PowerDNS 4.7 reads the fingerprint back in lower-case hex
  powerDns: { present: (v) => SSHFP.format(v).toLowerCase() },
  fromWire: (r) => ({ algorithm: r.u8(), fingerprintType: r.u8(), fingerprint: r.rest() }),
  toWire: (v, w) => {
    w.u8(v.algorithm).u8(v.fingerprintType).bytes(v.fingerprint);
  },
};
