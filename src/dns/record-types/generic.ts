/**
 * RFC 3597 unknown RR types: `TYPEnnn` with RDATA in the generic form `\# <length> <hex>` (§5). Any type the
 * model has no file for is stored and served this way, octet for octet, so an imported zone loses nothing and
 * the primary transfers it (§3: unknown RDATA is copied as-is; such RDATA holds no compressed names).
 */
import { MAX_RDATA_OCTETS, parseHex, parseUnsigned, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface GenericValue {
  data: Buffer;
}

/**
 * Type codes that cannot be data in a zone: 0 (reserved), OPT (41, RFC 6891 §6.1.1), the meta and query types
 * 128–255 (RFC 6895 §3.1: TKEY, TSIG, IXFR, AXFR, MAILB, MAILA, ANY) and 65535 (reserved).
 */
export function isDataTypeCode(code: number): boolean {
  return code > 0 && code !== 41 && !(code >= 128 && code <= 255) && code < 65535 && !SIGNER_TYPE_CODES.has(code);
}

/**
 * RRSIG 46, NSEC 47, NSEC3 50, NSEC3PARAM 51: what a signer writes (RFC 4034 §3, §4; RFC 5155 §3, §4). The
 * primary does not sign, so such records are never stored (zone-file import drops them and says so).
 */
export const SIGNER_TYPE_CODES = new Map<number, string>([
  [46, 'RRSIG'],
  [47, 'NSEC'],
  [50, 'NSEC3'],
  [51, 'NSEC3PARAM'],
]);

/** Parses the generic RDATA form `\# <length> <hex…>` (RFC 3597 §5); shared with types that also accept it. */
export function parseGenericRdata(rdata: string, what: string): { ok: true; data: Buffer } | { ok: false; problems: Problem[] } {
  const split = splitFields(rdata);
  if (!split.ok) return split;
  const f = split.fields.map((x) => x.raw);
  const problems: Problem[] = [];
  if (f[0] !== '\\#' || f.length < 2) {
    return {
      ok: false,
      problems: [
        problem('rdata', 'GENERIC_RDATA_FORM', `rdata: ${what} RDATA must be in the generic form \\# <length> <hex> (RFC 3597 §5)`),
      ],
    };
  }
  const length = parseUnsigned(f[1], { type: 'GENERIC', name: 'length', max: MAX_RDATA_OCTETS }, problems);
  const data = f.length > 2 ? parseHex(f.slice(2), `${what} RDATA`, problems) : Buffer.alloc(0);
  if (length !== undefined && data && data.length !== length) {
    problems.push(
      problem('rdata', 'GENERIC_RDATA_LENGTH', `rdata: ${what} RDATA says ${length} octets but holds ${data.length} (RFC 3597 §5)`, length),
    );
  }
  if (problems.length) return { ok: false, problems };
  return { ok: true, data: data! };
}

const cache = new Map<number, RecordTypeDefinition<GenericValue>>();

/** the definition of `TYPE<code>` for a code the model does not know */
export function genericType(code: number): RecordTypeDefinition<GenericValue> {
  const known = cache.get(code);
  if (known) return known;
  const definition: RecordTypeDefinition<GenericValue> = {
    type: `TYPE${code}`,
    code,
    rfcs: ['RFC 3597 §5'],
    fields: [{ name: 'generic-rdata', description: '\\# <length in octets> <hexadecimal RDATA>' }],
    parse(rdata: string): ParseResult<GenericValue> {
      const parsed = parseGenericRdata(rdata, `TYPE${code}`);
      if (!parsed.ok) return parsed;
      return finish([], () => ({ data: parsed.data }), definition.format);
    },
    // RFC 3597 §5: `\# 0` for empty RDATA; upper-case hex in one block, as DS and TLSA are shown
    format: (v) => (v.data.length ? `\\# ${v.data.length} ${v.data.toString('hex').toUpperCase()}` : '\\# 0'),
    // PowerDNS 4.7 reads the octets back in lower-case hex, and empty RDATA as `\# 0 ` (with its blank)
    powerDns: { present: (v) => (v.data.length ? definition.format(v).toLowerCase() : '\\# 0 ') },
    // RFC 3597 §4: an unknown type's RDATA holds no compressed names, so its octets are its value
    fromWire: (r) => ({ data: r.rest() }),
    toWire: (v, w) => {
      w.bytes(v.data);
    },
  };
  cache.set(code, definition);
  return definition;
}
