import { checkFieldCount, MAX_RDATA_OCTETS, parseHex, parseUnsigned, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface ZONEMDValue {
  serial: number;
  scheme: number;
  algorithm: number;
  digest: Buffer;
}

/** digest lengths of the registered hash algorithms: 1 SHA-384, 2 SHA-512 (RFC 8976 §5.3) */
const DIGEST_OCTETS: Record<number, number> = { 1: 48, 2: 64 };
/** RFC 8976 §2.2.4: a digest is at least 12 octets, whatever the algorithm */
const MIN_DIGEST_OCTETS = 12;

/**
 * ZONEMD: a digest of the whole zone (RFC 8976). Stored and served as written; the primary does not compute
 * it, so after a change (a new serial) it no longer matches and verifiers ignore it (RFC 8976 §4.1: the
 * ZONEMD serial must equal the SOA serial).
 */
export const ZONEMD: RecordTypeDefinition<ZONEMDValue> = {
  type: 'ZONEMD',
  code: 63,
  rfcs: ['RFC 8976 §2', 'RFC 8976 §2.3'],
  fields: [
    { name: 'serial', description: 'SOA serial the digest was computed at, 0–4294967295', kind: 'serial' },
    { name: 'scheme', description: '1 = SIMPLE (RFC 8976 §5.2)', kind: 'int' },
    { name: 'hash-algorithm', description: '1 = SHA-384 (48 octets), 2 = SHA-512 (64)', kind: 'int' },
    { name: 'digest', description: 'hexadecimal, at least 12 octets, blanks allowed between digits' },
  ],
  parse(rdata: string): ParseResult<ZONEMDValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('ZONEMD', split.fields, ['serial', 'scheme', 'hash-algorithm', 'digest'], problems, true))
      return { ok: false, problems };
    const f = split.fields.map((x) => x.raw);
    const serial = parseUnsigned(f[0], { type: 'ZONEMD', name: 'serial', max: 4294967295 }, problems);
    const scheme = parseUnsigned(f[1], { type: 'ZONEMD', name: 'scheme', max: 255 }, problems);
    const algorithm = parseUnsigned(f[2], { type: 'ZONEMD', name: 'hash algorithm', max: 255 }, problems);
    const digest = parseHex(f.slice(3), 'ZONEMD digest', problems);
    const expected = algorithm === undefined ? undefined : DIGEST_OCTETS[algorithm];
    if (digest && expected !== undefined && digest.length !== expected) {
      problems.push(
        problem(
          'rdata',
          'ZONEMD_DIGEST_LENGTH',
          `rdata: ZONEMD hash algorithm ${algorithm} needs a ${expected}-octet digest, got ${digest.length} octets`,
          expected,
        ),
      );
    } else if (digest && digest.length < MIN_DIGEST_OCTETS) {
      problems.push(
        problem(
          'rdata',
          'ZONEMD_DIGEST_LENGTH',
          `rdata: a ZONEMD digest is at least ${MIN_DIGEST_OCTETS} octets (RFC 8976 §2.2.4), got ${digest.length}`,
          MIN_DIGEST_OCTETS,
        ),
      );
    }
    if (digest && digest.length + 6 > MAX_RDATA_OCTETS)
      problems.push(
        problem(
          'rdata',
          'RDATA_TOO_LONG',
          `rdata: ZONEMD digest is ${digest.length} octets; the RDATA limit is ${MAX_RDATA_OCTETS}`,
          MAX_RDATA_OCTETS,
        ),
      );
    return finish(problems, () => ({ serial: serial!, scheme: scheme!, algorithm: algorithm!, digest: digest! }), ZONEMD.format);
  },
  format: (v) => `${v.serial} ${v.scheme} ${v.algorithm} ${v.digest.toString('hex').toUpperCase()}`,
  // PowerDNS 4.7 reads the digest back in lower-case hex
  powerDns: { present: (v) => ZONEMD.format(v).toLowerCase() },
  // RFC 8976 §2.2: SERIAL (32), SCHEME (8), HASH ALGORITHM (8), DIGEST
  fromWire: (r) => ({ serial: r.u32(), scheme: r.u8(), algorithm: r.u8(), digest: r.rest() }),
  toWire: (v, w) => {
    w.u32(v.serial).u8(v.scheme).u8(v.algorithm).bytes(v.digest);
  },
};
