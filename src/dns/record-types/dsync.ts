import type { Reading } from '../reading';
import { parseDomainNameInRdata } from '../name';
import { checkFieldCount, parseUnsigned, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { RdataReader, WireFormatError } from '../wire/reader';
import { WireWriter } from '../wire/writer';
import { parseGenericRdata } from './generic';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';
import { typeCode } from './signer-types';
import { typeMnemonicOf } from './type-codes';

/** RFC 9859 §5.2 (the DSYNC Scheme registry): 1, NOTIFY, the one scheme this service acts on */
export const DSYNC_SCHEME_NOTIFY = 1;
const SCHEME_MNEMONICS: Record<string, number> = { NOTIFY: DSYNC_SCHEME_NOTIFY };
/**
 * the types notified (RFC 9859 §3) that the model has no file for, by their mnemonic: CSYNC (62, RFC 7477),
 * which BIND writes and reads by name; any other type the model knows is named as the model names it
 */
const NOTIFIED_TYPES: Record<string, number> = { CSYNC: 62 };
const NOTIFIED_NAMES = new Map(Object.entries(NOTIFIED_TYPES).map(([name, code]) => [code, name]));

export interface DSYNCValue {
  /** the type of the notification this endpoint takes (CDS, which covers CDNSKEY too, or CSYNC) */
  rrtype: number;
  scheme: number;
  port: number;
  target: string;
}

/**
 * DSYNC (type 66): where a parent zone's operator takes generalised notifications from its children (RFC 9859
 * §2.1): the RR type notified, the scheme (1, NOTIFY: a DNS NOTIFY to `target` at `port`), and the target's
 * host name. Published by the parent at `<child labels>._dsync.<parent>` or, for every child, at
 * `_dsync.<parent>` (§4.1).
 */
export const DSYNC: RecordTypeDefinition<DSYNCValue> = {
  type: 'DSYNC',
  code: 66,
  rfcs: ['RFC 9859 §2'],
  fields: [
    { name: 'rrtype', description: 'the record type notified (CDS, CSYNC) as its mnemonic or TYPEnnn' },
    { name: 'scheme', description: '0–255 (or its mnemonic NOTIFY = 1); 0 is ignored', kind: 'int' },
    { name: 'port', description: '0–65535, where the target listens', kind: 'int' },
    { name: 'target', description: 'host name of the notification endpoint' },
  ],
  parse(rdata: string, zone: Reading): ParseResult<DSYNCValue> {
    if (rdata.trim().startsWith('\\#')) return parseGenericDsync(rdata, zone);
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('DSYNC', split.fields, ['rrtype', 'scheme', 'port', 'target'], problems)) return { ok: false, problems };
    const [t, s, p, n] = split.fields;
    const rrtype = NOTIFIED_TYPES[t.raw.toUpperCase()] ?? typeCode(t.raw, problems);
    // RFC 9859 §2.2: the scheme is an unsigned 8-bit number; its registry's mnemonic is taken on input too
    const mnemonic = SCHEME_MNEMONICS[s.raw.toUpperCase()];
    const scheme = mnemonic ?? parseUnsigned(s.raw, { type: 'DSYNC', name: 'scheme', max: 255 }, problems);
    const port = parseUnsigned(p.raw, { type: 'DSYNC', name: 'port', max: 65535 }, problems);
    const target = parseDomainNameInRdata(n.raw, zone, 'rdata');
    if (!target.ok) problems.push(...target.problems);
    if (rrtype === 0) problems.push(problem('rdata', 'TYPE_UNKNOWN', 'rdata: DSYNC rrtype 0 is no record type'));
    return finish(
      problems,
      () => ({ rrtype: rrtype!, scheme: scheme!, port: port!, target: (target as { name: string }).name }),
      DSYNC.format,
    );
  },
  format: (v) => `${NOTIFIED_NAMES.get(v.rrtype) ?? typeMnemonicOf(v.rrtype)} ${v.scheme} ${v.port} ${v.target}`,
  fromWire: (r) => fromWire(r),
  // RFC 9859 §2.1: RRtype, Scheme, Port, then the target, not compressed (RFC 3597 §4: a type after RFC 1035)
  toWire: (v, w) => {
    w.u16(v.rrtype).u8(v.scheme).u16(v.port).name(v.target);
  },
};

/** RFC 9859 §2.1: RRtype, Scheme, Port, Target */
const fromWire = (r: RdataReader): DSYNCValue => ({ rrtype: r.u16(), scheme: r.u8(), port: r.u16(), target: r.name() });

/**
 * DSYNC in RFC 3597's generic form (`TYPE66 \# 21 003B01…`, §5: a known type may be written so, and was stored
 * so before this type had a file): the octets are read as the wire format of §2.1 and must be exactly that (no
 * octet left over, the target's name uncompressed, §2.1), then checked as the presentation form is, and stored
 * in it. A stray octet would otherwise reach every client that reads the record as DSYNC, and break it.
 */
function parseGenericDsync(rdata: string, zone: Reading): ParseResult<DSYNCValue> {
  const generic = parseGenericRdata(rdata, 'DSYNC');
  if (!generic.ok) return generic;
  const malformed = (reason: string): ParseResult<DSYNCValue> => ({
    ok: false,
    problems: [
      problem('rdata', 'DSYNC_WIRE_FORMAT', `rdata: DSYNC RDATA in the generic form is not DSYNC's wire format: ${reason} (RFC 9859 §2.1)`),
    ],
  });
  let value: DSYNCValue;
  try {
    const reader = new RdataReader(generic.data, 0, generic.data.length);
    value = fromWire(reader);
    reader.finish();
  } catch (error) {
    if (error instanceof WireFormatError) return malformed(error.message);
    throw error;
  }
  // what the value writes must be the octets given: a compressed target (a pointer) reads as some name, but is
  // not DSYNC's form
  const writer = new WireWriter();
  DSYNC.toWire(value, writer);
  if (!writer.toBuffer().equals(generic.data)) return malformed('the target is compressed');
  // the fields as the presentation form checks them (the type notified, the target's name)
  return DSYNC.parse(DSYNC.format(value), zone);
}
