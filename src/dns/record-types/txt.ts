import { formatCharacterString, MAX_RDATA_OCTETS, parseCharacterString, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { ParseResult, RecordTypeDefinition } from './record-type';

export interface TXTValue {
  strings: Buffer[];
}

/**
 * TXT: one or more character-strings (RFC 1035 §3.3.14), each at most 255 octets. An over-long string is
 * refused (TXT_STRING_TOO_LONG), never split silently: where to split is the author's decision (e.g. DKIM keys).
 */
export const TXT: RecordTypeDefinition<TXTValue> = {
  type: 'TXT',
  code: 16,
  rfcs: ['RFC 1035 §3.3.14', 'RFC 1035 §5.1'],
  fields: [
    {
      name: 'txt-data',
      description: 'one or more character-strings, quoted or single words, each at most 255 octets; escapes \\" \\\\ \\DDD',
      kind: 'texts',
    },
  ],
  parse(rdata: string): ParseResult<TXTValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (split.fields.length === 0) {
      return {
        ok: false,
        problems: [problem('rdata', 'RDATA_FIELD_COUNT', 'rdata: TXT needs at least one character-string (use "" for an empty one)', 1)],
      };
    }
    const strings: Buffer[] = [];
    split.fields.forEach((f, i) => {
      const s = parseCharacterString(f.raw, 'rdata', `TXT string ${i + 1}`);
      if (s.ok) strings.push(s.bytes);
      else problems.push(...s.problems);
    });
    if (problems.length) return { ok: false, problems };
    // RFC 1035 §3.2.1: RDLENGTH is 16 bits; every string costs its length octet too
    const total = strings.reduce((n, s) => n + s.length + 1, 0);
    if (total > MAX_RDATA_OCTETS) {
      return {
        ok: false,
        problems: [
          problem(
            'rdata',
            'RDATA_TOO_LONG',
            `rdata: TXT data is ${total} octets in wire form; the limit is ${MAX_RDATA_OCTETS}`,
            MAX_RDATA_OCTETS,
          ),
        ],
      };
    }
    const value = { strings };
    return { ok: true, value, canonical: TXT.format(value) };
  },
  format: (value) => value.strings.map(formatCharacterString).join(' '),
  /**
   * Text with no double quote at all, typed into the API (`rdata=v=spf1 include:example.net -all`), is one
   * character-string: read as a zone file reads it, each word would be a string of its own, and TXT consumers
   * join strings without a space (RFC 7208 §3.3), so SPF, DKIM and verification tokens would change meaning
   * without a word. Quoted text keeps the zone file's syntax (several strings, escapes).
   */
  apiText: (rdata) => (rdata.includes('"') || !/\s/.test(rdata.trim()) ? rdata : `"${rdata.trim()}"`),
  fromWire: (r) => {
    const strings: Buffer[] = [];
    while (r.remaining > 0) strings.push(r.characterString());
    return { strings };
  },
  toWire: (value, w) => {
    for (const s of value.strings) w.characterString(s);
  },
};
