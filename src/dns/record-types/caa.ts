import type { Reading } from '../reading';
import {
  checkFieldCount,
  formatCharacterString,
  MAX_RDATA_OCTETS,
  parseCharacterString,
  parseUnsigned,
  shorten,
  splitFields,
} from '../presentation';
import { Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

/**
 * The property tags of IANA's "Certification Authority Restriction Properties" registry (RFC 8659 §7.2,
 * RFC 8657, RFC 9495, and the BIMI group's issuemail/issuevmc): a CA ignores a tag it does not know
 * (RFC 8659 §4.2), so an unknown one (`isue`) restricts nothing: a zone check warns about it.
 */
export const KNOWN_CAA_TAGS: ReadonlySet<string> = new Set([
  'issue',
  'issuewild',
  'iodef',
  'contactemail',
  'contactphone',
  'issuemail',
  'issuevmc',
]);

export interface CAAValue {
  flags: number;
  tag: string;
  value: Buffer;
}

/** CAA: certification authority authorization (RFC 8659 §4.1) */
export const CAA: RecordTypeDefinition<CAAValue> = {
  type: 'CAA',
  code: 257,
  rfcs: ['RFC 8659 §4.1'],
  fields: [
    { name: 'flags', description: '0–255; 128 = issuer critical', kind: 'int' },
    { name: 'tag', description: 'property tag, letters and digits (issue, issuewild, iodef, ...), stored lower-case' },
    { name: 'value', description: 'property value, a quoted string', kind: 'text' },
  ],
  parse(rdata: string, reading: Reading): ParseResult<CAAValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('CAA', split.fields, ['flags', 'tag', 'value'], problems)) return { ok: false, problems };
    const [f, t, v] = split.fields;
    const flags = parseUnsigned(f.raw, { type: 'CAA', name: 'flags', max: 255 }, problems);
    // RFC 8659 §4.1: the tag is ASCII letters and digits, length at least 1 and SHOULD be no more than 15;
    // matching is case-insensitive, so we store it lower-case
    const tag = t.raw.toLowerCase();
    if (!/^[a-z0-9]{1,15}$/.test(tag)) {
      problems.push(
        problem('rdata', 'CAA_TAG_INVALID', `rdata: CAA tag ${shorten(t.raw)} must be 1–15 ASCII letters or digits (RFC 8659 §4.1)`, 15),
      );
    }
    // the value is the rest of the RDATA on the wire: not length-prefixed, so only the RDATA limit applies
    const value = parseCharacterString(v.raw, 'rdata', 'CAA value', reading, MAX_RDATA_OCTETS - 2 - tag.length);
    if (!value.ok) problems.push(...value.problems);
    return finish(problems, () => ({ flags: flags!, tag, value: (value as { bytes: Buffer }).bytes }), CAA.format);
  },
  format: (v) => `${v.flags} ${v.tag} ${formatCharacterString(v.value)}`,
  fromWire: (r) => ({ flags: r.u8(), tag: r.characterString().toString('latin1'), value: r.rest() }),
  // RFC 8659 §4.1: flags, tag length and tag, then the value to the end of the RDATA
  toWire: (v, w) => {
    w.u8(v.flags).characterString(Buffer.from(v.tag, 'latin1')).bytes(v.value);
  },
};
