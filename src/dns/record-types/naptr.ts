import type { Reading } from '../reading';
import { parseDomainNameInRdata } from '../name';
import { checkFieldCount, formatCharacterString, parseCharacterString, parseUnsigned, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface NAPTRValue {
  order: number;
  preference: number;
  flags: Buffer;
  services: Buffer;
  regexp: Buffer;
  replacement: string;
}

/**
 * RFC 3402 §3.2 substitution expression: delim ere delim repl delim flags, where delim is neither a digit, a
 * flag ('i') nor a backslash, and back-references \1..\9 name existing groups. Returns a reason or undefined.
 */
function regexpProblem(text: string): string | undefined {
  if (text.length === 0) return undefined;
  const delim = text[0];
  if (/[0-9i\\\n]/.test(delim)) return `the delimiter ${JSON.stringify(delim)} may not be a digit, 'i' or a backslash`;
  const parts: string[] = [''];
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length) {
      parts[parts.length - 1] += c + text[i + 1];
      i++;
      continue;
    }
    if (c === delim) {
      parts.push('');
      continue;
    }
    parts[parts.length - 1] += c;
  }
  if (parts.length !== 3) return `it needs the form ${delim}ere${delim}replacement${delim}flags`;
  const [ere, repl, flags] = parts;
  if (ere.length === 0) return 'the regular expression part is empty';
  if (!/^i?$/.test(flags)) return `the only flag is 'i', got ${JSON.stringify(flags)}`;
  let groups = 0;
  for (let i = 0; i < ere.length; i++) {
    if (ere[i] === '\\') {
      i++;
      continue;
    }
    if (ere[i] === '(') groups++;
  }
  for (const m of repl.matchAll(/\\(.)/g)) {
    if (/[1-9]/.test(m[1]) && Number(m[1]) > groups) return `the back-reference \\${m[1]} has no matching group`;
  }
  return undefined;
}

/** NAPTR: naming authority pointer (RFC 3403 §4) */
export const NAPTR: RecordTypeDefinition<NAPTRValue> = {
  type: 'NAPTR',
  code: 35,
  rfcs: ['RFC 3403 §4', 'RFC 3402 §3.2'],
  fields: [
    { name: 'order', description: '0–65535, lower is processed first', kind: 'int' },
    { name: 'preference', description: '0–65535, among equal order', kind: 'int' },
    { name: 'flags', description: 'character-string of letters and digits (e.g. "U", "S", "A", "P")', kind: 'text' },
    { name: 'services', description: 'character-string (e.g. "E2U+sip")', kind: 'text' },
    { name: 'regexp', description: 'character-string: substitution expression delim-ere-delim-repl-delim-flags, or ""', kind: 'text' },
    { name: 'replacement', description: "domain name, or '.' when regexp is used" },
  ],
  parse(rdata: string, zone: Reading): ParseResult<NAPTRValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('NAPTR', split.fields, ['order', 'preference', 'flags', 'services', 'regexp', 'replacement'], problems))
      return { ok: false, problems };
    const f = split.fields.map((x) => x.raw);
    // RFC 3403 §4.1: ORDER and PREFERENCE are 16-bit unsigned integers
    const order = parseUnsigned(f[0], { type: 'NAPTR', name: 'order', max: 65535 }, problems);
    const preference = parseUnsigned(f[1], { type: 'NAPTR', name: 'preference', max: 65535 }, problems);
    const strings = [f[2], f[3], f[4]].map((raw, i) => {
      const s = parseCharacterString(raw, 'rdata', `NAPTR ${['flags', 'services', 'regexp'][i]}`, zone);
      if (!s.ok) {
        problems.push(...s.problems);
        return undefined;
      }
      return s.bytes;
    });
    const [flags, services, regexp] = strings;
    // RFC 3403 §4.1: flags are single characters from A-Z and 0-9
    if (flags && !/^[A-Za-z0-9]*$/.test(flags.toString('latin1'))) {
      problems.push(
        problem(
          'rdata',
          'NAPTR_FLAGS_INVALID',
          `rdata: NAPTR flags ${JSON.stringify(flags.toString('latin1'))} may hold only letters and digits (RFC 3403 §4.1)`,
        ),
      );
    }
    if (regexp) {
      const reason = regexpProblem(regexp.toString('latin1'));
      if (reason)
        problems.push(
          problem('rdata', 'NAPTR_REGEXP_INVALID', `rdata: NAPTR regexp is not an RFC 3402 §3.2 substitution expression: ${reason}`),
        );
    }
    const replacement = parseDomainNameInRdata(f[5], zone, 'rdata', { allowRoot: true });
    if (!replacement.ok) problems.push(...replacement.problems);
    // RFC 3403 §4.1: REGEXP and REPLACEMENT are mutually exclusive
    if (regexp && regexp.length > 0 && replacement.ok && replacement.name !== '.') {
      problems.push(
        problem(
          'rdata',
          'NAPTR_REGEXP_WITH_REPLACEMENT',
          "rdata: NAPTR regexp and replacement are mutually exclusive (RFC 3403 §4.1): use '.' as replacement when regexp is set",
        ),
      );
    }
    return finish(
      problems,
      () => ({
        order: order!,
        preference: preference!,
        flags: flags!,
        services: services!,
        regexp: regexp!,
        replacement: (replacement as { name: string }).name,
      }),
      NAPTR.format,
    );
  },
  format: (v) =>
    `${v.order} ${v.preference} ${formatCharacterString(v.flags)} ${formatCharacterString(v.services)} ${formatCharacterString(v.regexp)} ${v.replacement}`,
  fromWire: (r) => ({
    order: r.u16(),
    preference: r.u16(),
    flags: r.characterString(),
    services: r.characterString(),
    regexp: r.characterString(),
    replacement: r.name(),
  }),
  // RFC 3403 §4.1: the replacement is not compressed (NAPTR is no RFC 1035 type, RFC 3597 §4)
  toWire: (v, w) => {
    w.u16(v.order).u16(v.preference).characterString(v.flags).characterString(v.services).characterString(v.regexp).name(v.replacement);
  },
};
