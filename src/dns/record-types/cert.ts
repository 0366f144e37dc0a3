import { checkFieldCount, MAX_RDATA_OCTETS, parseBase64, parseUnsigned, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface CERTValue {
  certType: number;
  keyTag: number;
  algorithm: number;
  certificate: Buffer;
}

/** certificate type mnemonics (RFC 4398 §2.1) */
const CERT_TYPES: Record<string, number> = {
  PKIX: 1,
  SPKI: 2,
  PGP: 3,
  IPKIX: 4,
  ISPKI: 5,
  IPGP: 6,
  ACPKIX: 7,
  IACPKIX: 8,
  URI: 253,
  OID: 254,
};
/** DNSSEC algorithm mnemonics that RFC 4398 §2.1 lets the algorithm field use (IANA DNSSEC algorithm numbers) */
const ALGORITHMS: Record<string, number> = {
  RSAMD5: 1,
  DH: 2,
  DSA: 3,
  RSASHA1: 5,
  'DSA-NSEC3-SHA1': 6,
  'RSASHA1-NSEC3-SHA1': 7,
  RSASHA256: 8,
  RSASHA512: 10,
  'ECC-GOST': 12,
  ECDSAP256SHA256: 13,
  ECDSAP384SHA384: 14,
  ED25519: 15,
  ED448: 16,
  INDIRECT: 252,
  PRIVATEDNS: 253,
  PRIVATEOID: 254,
};

function numberOrMnemonic(text: string, table: Record<string, number>, name: string, max: number, problems: Problem[]): number | undefined {
  const known = table[text.toUpperCase()];
  if (known !== undefined) return known;
  return parseUnsigned(text, { type: 'CERT', name, max }, problems);
}

/** CERT: a certificate or CRL (RFC 4398 §2); mnemonics are read, numbers are stored */
export const CERT: RecordTypeDefinition<CERTValue> = {
  type: 'CERT',
  code: 37,
  rfcs: ['RFC 4398 §2'],
  fields: [
    {
      name: 'type',
      description: 'certificate type, 0–65535 or a mnemonic (PKIX, SPKI, PGP, IPKIX, ISPKI, IPGP, ACPKIX, IACPKIX, URI, OID)',
    },
    { name: 'key-tag', description: '0–65535', kind: 'int' },
    { name: 'algorithm', description: 'DNSSEC algorithm number 0–255 or its mnemonic' },
    { name: 'certificate', description: 'base64, blanks allowed between pieces' },
  ],
  parse(rdata: string): ParseResult<CERTValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('CERT', split.fields, ['type', 'key-tag', 'algorithm', 'certificate'], problems, true))
      return { ok: false, problems };
    const f = split.fields.map((x) => x.raw);
    const certType = numberOrMnemonic(f[0], CERT_TYPES, 'type', 65535, problems);
    const keyTag = parseUnsigned(f[1], { type: 'CERT', name: 'key tag', max: 65535 }, problems);
    const algorithm = numberOrMnemonic(f[2], ALGORITHMS, 'algorithm', 255, problems);
    const certificate = parseBase64(f.slice(3).join(''), 'CERT certificate', problems);
    if (certificate && certificate.length + 5 > MAX_RDATA_OCTETS)
      problems.push(
        problem(
          'rdata',
          'RDATA_TOO_LONG',
          `rdata: CERT certificate is ${certificate.length} octets; the RDATA limit is ${MAX_RDATA_OCTETS}`,
          MAX_RDATA_OCTETS,
        ),
      );
    return finish(
      problems,
      () => ({ certType: certType!, keyTag: keyTag!, algorithm: algorithm!, certificate: certificate! }),
      CERT.format,
    );
  },
  format: (v) => `${v.certType} ${v.keyTag} ${v.algorithm} ${v.certificate.toString('base64')}`,
  // RFC 4398 §2: TYPE (16), KEY TAG (16), ALGORITHM (8), then the certificate
  fromWire: (r) => ({ certType: r.u16(), keyTag: r.u16(), algorithm: r.u8(), certificate: r.rest() }),
  toWire: (v, w) => {
    w.u16(v.certType).u16(v.keyTag).u8(v.algorithm).bytes(v.certificate);
  },
};
