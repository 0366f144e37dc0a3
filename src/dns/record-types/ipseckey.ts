import type { Reading } from '../reading';
import { formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from '../ip';
import { parseDomainNameInRdata } from '../name';
import { checkFieldCount, MAX_RDATA_OCTETS, parseBase64, parseUnsigned, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface IPSECKEYValue {
  precedence: number;
  gatewayType: number;
  algorithm: number;
  gateway: string;
  key: Buffer;
}

/**
 * IPSECKEY (RFC 4025 §2): precedence, gateway type (0 none, written '.'; 1 IPv4; 2 IPv6; 3 a domain name),
 * algorithm, gateway, and the base64 public key.
 */
export const IPSECKEY: RecordTypeDefinition<IPSECKEYValue> = {
  type: 'IPSECKEY',
  code: 45,
  rfcs: ['RFC 4025 §2', 'RFC 4025 §3'],
  fields: [
    { name: 'precedence', description: '0–255, lower is preferred', kind: 'int' },
    { name: 'gateway-type', description: "0 no gateway ('.'), 1 IPv4, 2 IPv6, 3 domain name", kind: 'int' },
    { name: 'algorithm', description: '1 DSA, 2 RSA, 3 ECDSA (0, no key, is refused: see the public key)', kind: 'int' },
    { name: 'gateway', description: "'.', an IPv4 or IPv6 address, or a domain name, as the gateway type says" },
    { name: 'public-key', description: 'base64, blanks allowed between pieces', optional: true },
  ],
  parse(rdata: string, zone: Reading): ParseResult<IPSECKEYValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('IPSECKEY', split.fields, ['precedence', 'gateway-type', 'algorithm', 'gateway'], problems, true))
      return { ok: false, problems };
    const f = split.fields.map((x) => x.raw);
    const precedence = parseUnsigned(f[0], { type: 'IPSECKEY', name: 'precedence', max: 255 }, problems);
    const gatewayType = parseUnsigned(f[1], { type: 'IPSECKEY', name: 'gateway type', max: 3 }, problems);
    const algorithm = parseUnsigned(f[2], { type: 'IPSECKEY', name: 'algorithm', max: 255 }, problems);
    let gateway: string | undefined;
    const bad = (what: string) =>
      problems.push(
        problem(
          'rdata',
          'IPSECKEY_GATEWAY',
          `rdata: IPSECKEY gateway type ${gatewayType} needs ${what}, got ${JSON.stringify(f[3])} (RFC 4025 §3.1)`,
        ),
      );
    if (gatewayType === 0) {
      if (f[3] === '.') gateway = '.';
      else bad("'.'");
    }
    if (gatewayType === 1) {
      const a = parseIPv4(f[3]);
      if (a) gateway = formatIPv4(a);
      else bad('an IPv4 address');
    }
    if (gatewayType === 2) {
      const a = parseIPv6(f[3]);
      if (a) gateway = formatIPv6(a);
      else bad('an IPv6 address');
    }
    if (gatewayType === 3) {
      const name = parseDomainNameInRdata(f[3], zone, 'rdata');
      if (name.ok) gateway = name.name;
      else problems.push(...name.problems);
    }
    // RFC 4025 §2.4 lets the key be absent (algorithm 0), but named-checkzone refuses a record without a key and
    // kzonecheck refuses algorithm 0: only a key with its algorithm loads in both (docs/dns-known-differences.md)
    if (algorithm === 0)
      problems.push(
        problem(
          'rdata',
          'IPSECKEY_ALGORITHM',
          'rdata: IPSECKEY algorithm 0 (no key) is not accepted: BIND needs a key and Knot refuses algorithm 0; give the key and its algorithm (1 DSA, 2 RSA, 3 ECDSA)',
        ),
      );
    if (f.length <= 4)
      problems.push(problem('rdata', 'IPSECKEY_KEY_MISSING', 'rdata: IPSECKEY needs the public key (base64) after the gateway'));
    const key = f.length > 4 ? parseBase64(f.slice(4).join(''), 'IPSECKEY public key', problems) : Buffer.alloc(0);
    if (key && key.length + 3 + 255 > MAX_RDATA_OCTETS)
      problems.push(
        problem(
          'rdata',
          'RDATA_TOO_LONG',
          `rdata: IPSECKEY key is ${key.length} octets; the RDATA limit is ${MAX_RDATA_OCTETS}`,
          MAX_RDATA_OCTETS,
        ),
      );
    return finish(
      problems,
      () => ({ precedence: precedence!, gatewayType: gatewayType!, algorithm: algorithm!, gateway: gateway!, key: key! }),
      IPSECKEY.format,
    );
  },
  format: (v) => `${v.precedence} ${v.gatewayType} ${v.algorithm} ${v.gateway}${v.key.length ? ` ${v.key.toString('base64')}` : ''}`,
  // RFC 4025 §2: the gateway's form follows its type; a name is never compressed (§2.5)
  fromWire: (r) => {
    const precedence = r.u8();
    const gatewayType = r.u8();
    const algorithm = r.u8();
    const gateway =
      gatewayType === 0 ? '.' : gatewayType === 1 ? formatIPv4(r.bytes(4)) : gatewayType === 2 ? formatIPv6(r.bytes(16)) : r.name();
    return { precedence, gatewayType, algorithm, gateway, key: r.rest() };
  },
  // RFC 4025 §2.5: the gateway name is not compressed (and never lower-cased, RFC 4034 §6.2 does not list it)
  toWire: (v, w) => {
    w.u8(v.precedence).u8(v.gatewayType).u8(v.algorithm);
    if (v.gatewayType === 1) w.bytes(parseIPv4(v.gateway)!);
    else if (v.gatewayType === 2) w.bytes(parseIPv6(v.gateway)!);
    else if (v.gatewayType === 3) w.name(v.gateway);
    w.bytes(v.key);
  },
};
