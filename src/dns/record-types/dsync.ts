import { parseDomainNameInRdata } from '../name';
import { checkFieldCount, parseUnsigned, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';
import { typeCode, typeMnemonicOf } from './signer-types';

/** RFC 9859 §5.2 (the DSYNC Scheme registry): 1, NOTIFY, the one scheme this service acts on */
export const DSYNC_SCHEME_NOTIFY = 1;
const SCHEME_MNEMONICS: Record<string, number> = { NOTIFY: DSYNC_SCHEME_NOTIFY };

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
  parse(rdata: string, zone: string): ParseResult<DSYNCValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('DSYNC', split.fields, ['rrtype', 'scheme', 'port', 'target'], problems)) return { ok: false, problems };
    const [t, s, p, n] = split.fields;
    const rrtype = typeCode(t.raw, problems);
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
  format: (v) => `${typeMnemonicOf(v.rrtype)} ${v.scheme} ${v.port} ${v.target}`,
  fromWire: (r) => ({ rrtype: r.u16(), scheme: r.u8(), port: r.u16(), target: r.name() }),
  // RFC 9859 §2.1: RRtype, Scheme, Port, then the target, not compressed (RFC 3597 §4: a type after RFC 1035)
  toWire: (v, w) => {
    w.u16(v.rrtype).u8(v.scheme).u16(v.port).name(v.target);
  },
};
