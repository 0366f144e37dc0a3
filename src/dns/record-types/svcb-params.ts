/**
 * SVCB and HTTPS share their RDATA (RFC 9460 §2): SvcPriority, TargetName and SvcParams. This file holds the
 * parameter rules; svcb.ts and https.ts only name the type.
 */
import type { Reading } from '../reading';
import { formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from '../ip';
import { parseDomainNameInRdata } from '../name';
import { nameWireLength } from '../wire/name';
import type { WireWriter } from '../wire/writer';
import { decodeEscapes, escapeOctets, MAX_RDATA_OCTETS, parseBase64, parseUnsigned, shorten, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { ParseResult, RecordFieldInfo, RecordTypeDefinition } from './record-type';

/** one SvcParam: the key number and its value in wire form (RFC 9460 §2.2) */
export interface SvcParam {
  key: number;
  value: Buffer;
}
export interface SVCBValue {
  priority: number;
  target: string;
  params: SvcParam[];
}

/**
 * the SvcParamKeys registered by RFC 9460 §14.3.2, dohpath (7, RFC 9461 §5) and ohttp (8, RFC 9540 §4); others
 * are written keyNNNNN (§2.1)
 */
const KEY_NAMES = ['mandatory', 'alpn', 'no-default-alpn', 'port', 'ipv4hint', 'ech', 'ipv6hint', 'dohpath', 'ohttp'];
const KEY_DOHPATH = 7;
const KEY_OHTTP = 8;
const KEY_MANDATORY = 0;
const KEY_ALPN = 1;
const KEY_NO_DEFAULT_ALPN = 2;
/** RFC 9460 §14.3.2: 65535 is reserved ("Invalid key") */
const KEY_INVALID = 65535;

function keyName(key: number): string {
  return KEY_NAMES[key] ?? `key${key}`;
}

/** key name (or keyNNNNN) to number; undefined if unknown */
function keyNumber(name: string): number | undefined {
  const known = KEY_NAMES.indexOf(name);
  if (known >= 0) return known;
  const m = /^key([0-9]{1,5})$/.exec(name);
  if (!m) return undefined;
  const n = Number(m[1]);
  return n <= 65535 ? n : undefined;
}

/**
 * Splits a decoded value-list on commas (RFC 9460 Appendix A.1): after the character-string escapes are removed
 * (first layer), `\,` and `\\` protect commas and backslashes inside an item (second layer).
 */
function splitValueList(bytes: Buffer): Buffer[] {
  const items: number[][] = [[]];
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === 0x5c && i + 1 < bytes.length) {
      items[items.length - 1].push(bytes[i + 1]);
      i++;
      continue;
    }
    if (b === 0x2c) {
      items.push([]);
      continue;
    }
    items[items.length - 1].push(b);
  }
  return items.map((item) => Buffer.from(item));
}

/** the inverse of splitValueList: protect commas and backslashes in each item, join with commas */
function joinValueList(items: Buffer[]): Buffer {
  const out: number[] = [];
  items.forEach((item, index) => {
    if (index > 0) out.push(0x2c);
    for (const b of item) {
      if (b === 0x2c || b === 0x5c) out.push(0x5c);
      out.push(b);
    }
  });
  return Buffer.from(out);
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n, 0);
  return b;
}

/** Converts one parameter's presentation value to wire form (RFC 9460 §7 and §8), or reports why not. */
function valueToWire(key: number, present: boolean, bytes: Buffer, problems: Problem[], type: string): Buffer | undefined {
  const name = keyName(key);
  const text = bytes.toString('latin1');
  const bad = (reason: string) => {
    problems.push(problem('rdata', 'SVCB_PARAM_VALUE', `rdata: ${type} parameter ${name}: ${reason}`));
    return undefined;
  };
  const needsValue = key <= KEY_DOHPATH && key !== KEY_NO_DEFAULT_ALPN;
  if (needsValue && (!present || bytes.length === 0)) return bad('a value is required');
  switch (key) {
    case KEY_MANDATORY: {
      // RFC 9460 §8: a list of keys, never "mandatory" itself, without repetition; sorted on the wire
      const keys: number[] = [];
      for (const item of text.split(',')) {
        const k = keyNumber(item.toLowerCase());
        if (k === undefined || k === KEY_INVALID) return bad(`${shorten(item)} is not a parameter key`);
        if (k === KEY_MANDATORY) return bad('"mandatory" may not list itself (RFC 9460 §8)');
        if (keys.includes(k)) return bad(`${keyName(k)} is listed twice`);
        keys.push(k);
      }
      return Buffer.concat(keys.sort((a, b) => a - b).map(u16));
    }
    case KEY_ALPN: {
      // RFC 9460 §7.1.1: a non-empty list of alpn-ids, each 1–255 octets
      const ids = splitValueList(bytes);
      if (ids.some((id) => id.length === 0)) return bad('an ALPN id is empty');
      if (ids.some((id) => id.length > 255)) return bad('an ALPN id is longer than 255 octets');
      return Buffer.concat(ids.flatMap((id) => [Buffer.from([id.length]), id]));
    }
    case KEY_NO_DEFAULT_ALPN:
      // RFC 9460 §7.1.1: no-default-alpn has no value
      if (present) return bad('takes no value');
      return Buffer.alloc(0);
    case 3: {
      // RFC 9460 §7.2: a 16-bit port
      const before = problems.length;
      const port = parseUnsigned(text, { type, name: 'port', max: 65535 }, problems);
      if (port === undefined) {
        problems.splice(before);
        return bad(`${shorten(text)} is not a port number 0–65535`);
      }
      return u16(port);
    }
    case 4: {
      // RFC 9460 §7.3: one or more IPv4 addresses
      const addresses = text.split(',').map(parseIPv4);
      if (addresses.some((a) => a === undefined)) return bad(`${shorten(text)} is not a comma-separated list of IPv4 addresses`);
      return Buffer.from(addresses.flat() as number[]);
    }
    case 5: {
      // RFC 9460 §7.4 / RFC 9848: ECHConfigList in base64
      const before = problems.length;
      const decoded = parseBase64(text, `${type} ech`, problems);
      if (!decoded) return undefined;
      if (decoded.length === 0) {
        problems.splice(before);
        return bad('the ECHConfigList is empty');
      }
      return decoded;
    }
    case 6: {
      // RFC 9460 §7.3: one or more IPv6 addresses
      const addresses = text.split(',').map(parseIPv6);
      if (addresses.some((a) => a === undefined)) return bad(`${shorten(text)} is not a comma-separated list of IPv6 addresses`);
      return Buffer.from(addresses.flat() as number[]);
    }
    case KEY_DOHPATH:
      // RFC 9461 §5: a relative URI template (RFC 6570) for the DoH path, with the "dns" variable
      if (!text.startsWith('/') || !/\{\?[^}]*\bdns\b[^}]*\}/.test(text))
        return bad(`${shorten(text)} is not a relative URI template with the "dns" variable, e.g. /dns-query{?dns} (RFC 9461 §5)`);
      return Buffer.from(bytes);
    case KEY_OHTTP:
      // RFC 9540 §4: ohttp has no value
      if (present) return bad('takes no value');
      return Buffer.alloc(0);
    default:
      // RFC 9460 §2.1: unknown keys carry opaque octets as a character-string (possibly empty)
      return Buffer.from(bytes);
  }
}

/** the keys PowerDNS 4.7 names (RFC 9460's); it writes every later one as keyNNNNN */
const POWERDNS_KEYS = 7;

/**
 * Presentation form of one parameter from its wire value: the model's, or PowerDNS 4.7's (`powerdns`), which
 * writes alpn without quotes unless its text has a blank (`alpn=h2,h3`), names the keys it does not know by
 * number (dohpath as key7, ohttp as key8) and gives such a key's empty value as `""`.
 */
function formatParam(param: SvcParam, style: 'model' | 'powerdns' = 'model'): string {
  const v = param.value;
  switch (param.key) {
    case KEY_MANDATORY: {
      const keys: string[] = [];
      for (let i = 0; i + 1 < v.length; i += 2) {
        const key = v.readUInt16BE(i);
        keys.push(style === 'powerdns' && key >= POWERDNS_KEYS ? `key${key}` : keyName(key));
      }
      return `mandatory=${keys.join(',')}`;
    }
    case KEY_ALPN: {
      const ids: Buffer[] = [];
      for (let i = 0; i < v.length;) {
        ids.push(v.subarray(i + 1, i + 1 + v[i]));
        i += 1 + v[i];
      }
      const text = escapeOctets(joinValueList(ids));
      return style === 'powerdns' && !text.includes(' ') ? `alpn=${text}` : `alpn="${text}"`;
    }
    case KEY_NO_DEFAULT_ALPN:
      return 'no-default-alpn';
    case 3:
      return `port=${v.readUInt16BE(0)}`;
    case 4: {
      const list: string[] = [];
      for (let i = 0; i < v.length; i += 4) list.push(formatIPv4(v.subarray(i, i + 4)));
      return `ipv4hint=${list.join(',')}`;
    }
    case 5:
      return `ech="${v.toString('base64')}"`;
    case 6: {
      const list: string[] = [];
      for (let i = 0; i < v.length; i += 16) list.push(formatIPv6(v.subarray(i, i + 16)));
      return `ipv6hint=${list.join(',')}`;
    }
    default:
      if (style === 'powerdns') return `key${param.key}="${escapeOctets(v)}"`;
      return v.length === 0 ? keyName(param.key) : `${keyName(param.key)}="${escapeOctets(v)}"`;
  }
}

function paramsWireLength(params: SvcParam[]): number {
  return params.reduce((n, p) => n + 4 + p.value.length, 0);
}

/** RFC 9460 §2.2: SvcPriority, TargetName (uncompressed), then each SvcParam as key, length, value */
function writeSvcb(value: SVCBValue, w: WireWriter): void {
  w.u16(value.priority).name(value.target);
  for (const p of value.params) w.u16(p.key).u16(p.value.length).bytes(p.value);
}

export const SVCB_FIELDS: RecordFieldInfo[] = [
  { name: 'priority', description: '0 = AliasMode (no parameters), 1–65535 = ServiceMode, lower is preferred', kind: 'int' },
  { name: 'target', description: "target name; '.' means the owner name (ServiceMode) or no service (AliasMode)" },
  {
    name: 'params',
    description:
      'key=value parameters: mandatory, alpn, no-default-alpn, port, ipv4hint, ech, ipv6hint, dohpath, ohttp, keyNNNNN; shown sorted by key number',
    optional: true,
  },
];

export function svcbLikeType(spec: { type: string; code: number; rfcs: string[] }): RecordTypeDefinition<SVCBValue> {
  const { type } = spec;
  const definition: RecordTypeDefinition<SVCBValue> = {
    type,
    code: spec.code,
    rfcs: spec.rfcs,
    fields: SVCB_FIELDS,
    parse(rdata: string, zone: Reading): ParseResult<SVCBValue> {
      const split = splitFields(rdata);
      if (!split.ok) return split;
      const problems: Problem[] = [];
      if (split.fields.length < 2) {
        return {
          ok: false,
          problems: [
            problem(
              'rdata',
              'RDATA_FIELD_COUNT',
              `rdata: ${type} needs at least 2 fields (priority target [params...]), got ${split.fields.length}`,
              2,
            ),
          ],
        };
      }
      const [p, t, ...rest] = split.fields;
      // RFC 9460 §2.2: SvcPriority is a 16-bit integer; TargetName an uncompressed domain name, '.' allowed (§2.5)
      const priority = parseUnsigned(p.raw, { type, name: 'priority', max: 65535 }, problems);
      const target = parseDomainNameInRdata(t.raw, zone, 'rdata', { allowRoot: true });
      if (!target.ok) problems.push(...target.problems);
      const params: SvcParam[] = [];
      for (const field of rest) {
        const m = /^([A-Za-z0-9-]+)(=([\s\S]*))?$/.exec(field.raw);
        const key = m ? keyNumber(m[1].toLowerCase()) : undefined;
        if (!m || key === undefined) {
          problems.push(
            problem(
              'rdata',
              'SVCB_PARAM_UNKNOWN',
              `rdata: ${type} parameter ${shorten(field.raw)} is not key=value with a known key (${KEY_NAMES.join(', ')}, keyNNNNN)`,
            ),
          );
          continue;
        }
        if (key === KEY_INVALID) {
          problems.push(
            problem('rdata', 'SVCB_PARAM_UNKNOWN', `rdata: ${type} key65535 is reserved as the invalid key (RFC 9460 §14.3.2)`),
          );
          continue;
        }
        if (params.some((x) => x.key === key)) {
          // RFC 9460 §2.2: SvcParamKeys SHALL appear in increasing numeric order, so each at most once
          problems.push(problem('rdata', 'SVCB_PARAM_DUPLICATE', `rdata: ${type} parameter ${keyName(key)} appears more than once`));
          continue;
        }
        const present = m[2] !== undefined;
        let raw = m[3] ?? '';
        if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) raw = raw.slice(1, -1);
        else if (raw.includes('"')) {
          problems.push(
            problem('rdata', 'INVALID_QUOTING', `rdata: ${type} parameter ${keyName(key)} has a stray double quote in its value`),
          );
          continue;
        }
        const decoded = decodeEscapes(raw, 'rdata', `${type} parameter ${keyName(key)}`);
        if (!decoded.ok) {
          problems.push(...decoded.problems);
          continue;
        }
        const wire = valueToWire(key, present, decoded.bytes, problems, type);
        if (wire) params.push({ key, value: wire });
      }
      params.sort((a, b) => a.key - b.key);
      if (priority === 0 && rest.length > 0) {
        // RFC 9460 §2.4.2: AliasMode records carry no SvcParams
        problems.push(
          problem('rdata', 'SVCB_ALIAS_WITH_PARAMS', `rdata: ${type} with priority 0 (AliasMode) takes no parameters (RFC 9460 §2.4.2)`),
        );
      }
      const mandatory = params.find((x) => x.key === KEY_MANDATORY);
      if (mandatory) {
        // RFC 9460 §8: every key listed in mandatory must be present in the record
        for (let i = 0; i < mandatory.value.length; i += 2) {
          const k = mandatory.value.readUInt16BE(i);
          if (!params.some((x) => x.key === k)) {
            problems.push(
              problem(
                'rdata',
                'SVCB_MANDATORY_MISSING',
                `rdata: ${type} lists ${keyName(k)} as mandatory but has no ${keyName(k)} parameter (RFC 9460 §8)`,
              ),
            );
          }
        }
      }
      if (params.some((x) => x.key === KEY_NO_DEFAULT_ALPN) && !params.some((x) => x.key === KEY_ALPN)) {
        // RFC 9460 §7.1.1: no-default-alpn without alpn leaves no protocol to use
        problems.push(problem('rdata', 'SVCB_ALPN_REQUIRED', `rdata: ${type} no-default-alpn needs an alpn parameter (RFC 9460 §7.1.1)`));
      }
      if (problems.length) return { ok: false, problems };
      const value: SVCBValue = { priority: priority!, target: (target as { name: string }).name, params };
      const size = 2 + nameWireLength(value.target) + paramsWireLength(params);
      if (size > MAX_RDATA_OCTETS) {
        return {
          ok: false,
          problems: [
            problem(
              'rdata',
              'RDATA_TOO_LONG',
              `rdata: ${type} RDATA is ${size} octets; the limit is ${MAX_RDATA_OCTETS}`,
              MAX_RDATA_OCTETS,
            ),
          ],
        };
      }
      return { ok: true, value, canonical: definition.format(value) };
    },
    format: (v) => [String(v.priority), v.target, ...v.params.map((p) => formatParam(p))].join(' '),
    powerDns: {
      // PowerDNS 4.7 writes a key it does not know with its empty value, `key8=""` (ohttp, which takes none)
      content: (rdata) => rdata.replace(/(^|\s)key8=""(?=\s|$)/g, '$1key8'),
      present: (v) => [String(v.priority), v.target, ...v.params.map((p) => formatParam(p, 'powerdns'))].join(' '),
    },
    // RFC 9460 §2.2: SvcPriority, TargetName (uncompressed), then SvcParams as key, length, value
    fromWire: (r) => {
      const priority = r.u16();
      const target = r.name();
      const params: SvcParam[] = [];
      while (r.remaining > 0) {
        const key = r.u16();
        params.push({ key, value: r.bytes(r.u16()) });
      }
      return { priority, target, params };
    },
    toWire: (v, w) => {
      writeSvcb(v, w);
    },
  };
  return definition;
}
