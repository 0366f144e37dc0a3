import type { Reading } from '../reading';
import {
  decodeEscapes,
  formatCharacterString,
  MAX_CHARACTER_STRING_OCTETS,
  MAX_RDATA_OCTETS,
  parseCharacterString,
  splitFields,
} from '../presentation';
import { Problem, problem } from '../problem';
import { ApiText, ParseResult, RecordTypeDefinition } from './record-type';

export interface TXTValue {
  strings: Buffer[];
}

/**
 * TXT: one or more character-strings (RFC 1035 §3.3.14), each at most 255 octets. An over-long quoted string is
 * refused (TXT_STRING_TOO_LONG): who quotes chose the strings. Unquoted text typed into the API is split into
 * strings of 255 octets, with a warning (`apiText`).
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
  parse(rdata: string, reading: Reading): ParseResult<TXTValue> {
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
      const s = parseCharacterString(f.raw, 'rdata', `TXT string ${i + 1}`, reading);
      if (s.ok) strings.push(s.bytes);
      else
        problems.push(
          ...s.problems.map((p) =>
            p.code === 'TXT_STRING_TOO_LONG'
              ? { ...p, message: `${p.message}: write it as several quoted strings ("…" "…"), which SPF and DKIM read joined` }
              : p,
          ),
        );
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
  apiText: (rdata) => unquotedApiText(rdata),
  powerDns: {
    content: (rdata) => powerDnsContent(rdata),
    present: (value) => powerDnsPresentation(value),
    // only a string of 255 octets is read with the next: its text alone, quoted, is longer than 256 characters
    differs: (rdata) => rdata.length > 2 + MAX_CHARACTER_STRING_OCTETS,
  },
  fromWire: (r) => {
    const strings: Buffer[] = [];
    while (r.remaining > 0) strings.push(r.characterString());
    return { strings };
  },
  toWire: (value, w) => {
    for (const s of value.strings) w.characterString(s);
  },
};

/** where a split of `bytes` at `end` keeps UTF-8 characters whole: never before a continuation octet (10xxxxxx) */
function characterBoundary(bytes: Buffer, start: number, end: number): number {
  if (end >= bytes.length) return bytes.length;
  let at = end;
  while (at > start + MAX_CHARACTER_STRING_OCTETS - 4 && (bytes[at] & 0xc0) === 0x80) at -= 1;
  return (bytes[at] & 0xc0) === 0x80 ? end : at;
}

/**
 * TXT's `apiText`: text with no double quote at all is one piece of text, not words. Longer than one
 * character-string holds (255 octets), it becomes several strings of at most 255 octets each, UTF-8 characters
 * kept whole, as DNS consoles do: SPF joins a record's strings without a space (RFC 7208 §3.3), and so do DKIM
 * (RFC 6376 §3.6.2.2) and DMARC (RFC 7489 §6.3), so the split changes nothing they read. The split is said in a
 * TXT_SPLIT warning. Quoted text is the zone file's syntax: its strings are the author's, never split.
 */
function unquotedApiText(rdata: string): ApiText {
  const text = rdata.trim();
  if (rdata.includes('"')) return { rdata, warnings: [] };
  const decoded = decodeEscapes(text, 'rdata', 'TXT data');
  // a bad escape, or text that fits one string: read as one quoted string (its problems are then the parser's)
  if (!decoded.ok || decoded.bytes.length <= MAX_CHARACTER_STRING_OCTETS)
    return { rdata: /\s/.test(text) ? `"${text}"` : rdata, warnings: [] };
  const strings: Buffer[] = [];
  for (let start = 0; start < decoded.bytes.length;) {
    const end = characterBoundary(decoded.bytes, start, start + MAX_CHARACTER_STRING_OCTETS);
    strings.push(decoded.bytes.subarray(start, end));
    start = end;
  }
  return {
    rdata: strings.map(formatCharacterString).join(' '),
    warnings: [
      problem(
        'rdata',
        'TXT_SPLIT',
        `rdata: the text is ${decoded.bytes.length} octets, more than one character-string holds (${MAX_CHARACTER_STRING_OCTETS}, RFC 1035 §3.3.14); stored as ${strings.length} strings, which SPF, DKIM and DMARC read joined (RFC 7208 §3.3, RFC 6376 §3.6.2.2). Quote the text to choose the split yourself`,
        MAX_CHARACTER_STRING_OCTETS,
      ),
    ],
  };
}

/**
 * TXT content as PowerDNS reads it: a quoted string over 255 octets is several character-strings, its octets cut
 * every 255 (PowerDNS 4.7 cuts there, inside a UTF-8 character too, and serves those strings). The PowerDNS
 * tools send a TXT value as one string whatever its length (octoDNS's 2048-bit DKIM key, ~400 octets), as
 * PowerDNS takes it; SPF, DKIM and DMARC read a record's strings joined (RFC 7208 §3.3, RFC 6376 §3.6.2.2,
 * RFC 7489 §6.3), so the cut changes nothing they read. Content with no such string is left as it is.
 */
function powerDnsContent(rdata: string): string {
  const split = splitFields(rdata);
  if (!split.ok) return rdata;
  let cut = false;
  const fields = split.fields.map((field) => {
    const decoded = parseCharacterString(field.raw, 'rdata', 'TXT string', undefined, Number.MAX_SAFE_INTEGER);
    if (!decoded.ok || decoded.bytes.length <= MAX_CHARACTER_STRING_OCTETS) return field.raw;
    cut = true;
    const strings: string[] = [];
    for (let at = 0; at < decoded.bytes.length; at += MAX_CHARACTER_STRING_OCTETS)
      strings.push(formatCharacterString(decoded.bytes.subarray(at, at + MAX_CHARACTER_STRING_OCTETS)));
    return strings.join(' ');
  });
  return cut ? fields.join(' ') : rdata;
}

/**
 * TXT as PowerDNS reads it back: the text its client wrote, so a string it cut (`powerDnsContent`) is one string
 * again. Each string of exactly 255 octets is read with the non-empty string after it, as PowerDNS cut them; a
 * client that cut a value there itself reads it back as one string (the same RDATA; docs/powerdns-api.md).
 */
function powerDnsPresentation(value: TXTValue): string {
  const strings: Buffer[][] = [];
  let previous: Buffer | undefined;
  for (const s of value.strings) {
    if (previous?.length === MAX_CHARACTER_STRING_OCTETS && s.length > 0) strings[strings.length - 1].push(s);
    else strings.push([s]);
    previous = s;
  }
  return strings.map((pieces) => formatCharacterString(Buffer.concat(pieces))).join(' ');
}

/**
 * Whether TXT RDATA (canonical: quoted strings) is an SPF record: its strings joined (RFC 7208 §3.3) begin with
 * the version section "v=spf1", ended by a space or the end of the record (RFC 7208 §4.5), in any letter case.
 */
export function isSpfRecord(canonicalRdata: string): boolean {
  const parsed = TXT.parse(canonicalRdata, '');
  if (!parsed.ok) return false;
  const text = Buffer.concat(parsed.value.strings).toString('latin1');
  return /^v=spf1( |$)/i.test(text);
}
