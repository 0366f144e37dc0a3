/**
 * Helpers for the RFC 1035 §5.1 presentation format of RDATA: splitting into fields, character-strings with
 * their escapes, integers, hex and base64. Every type file builds on these so that the same input rules (and
 * the same problem codes) hold for every record type.
 */
import { inRdataField, Problem, problem } from './problem';
import { standaloneZoneOf, type Reading } from './reading';

/** the largest RDATA a resource record can carry: RDLENGTH is 16 bits (RFC 1035 §3.2.1) */
export const MAX_RDATA_OCTETS = 65535;
/** a <character-string> is one length octet followed by at most 255 octets (RFC 1035 §3.3) */
export const MAX_CHARACTER_STRING_OCTETS = 255;

export interface Field {
  /** the field exactly as written, quotes and escapes included */
  raw: string;
  /** offset of the field in the RDATA text */
  start: number;
}

export type FieldsResult = { ok: true; fields: Field[] } | { ok: false; problems: Problem[] };

/** space, tab, carriage return, line feed */
const isBlankCode = (c: number) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;

/**
 * Splits RDATA into whitespace-separated fields (RFC 1035 §5.1). A double quote opens a quoted stretch in which
 * blanks do not separate; a backslash protects the character after it everywhere.
 */
export function splitFields(rdata: string, field = 'rdata'): FieldsResult {
  const fields: Field[] = [];
  let i = 0;
  // by character code, not one-character strings: every record of a zone file comes through here
  while (i < rdata.length) {
    if (isBlankCode(rdata.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    let quoted = false;
    while (i < rdata.length) {
      const c = rdata.charCodeAt(i);
      if (!quoted && isBlankCode(c)) break;
      if (c === 0x5c) {
        // a backslash protects the character after it
        i += 2;
        continue;
      }
      if (c === 0x22) quoted = !quoted;
      i++;
    }
    if (quoted) {
      return {
        ok: false,
        problems: [
          problem(field, 'UNTERMINATED_QUOTE', `${field}: a quoted string starting at position ${start + 1} has no closing double quote`),
        ],
      };
    }
    fields.push({ raw: rdata.slice(start, Math.min(i, rdata.length)), start });
  }
  return { ok: true, fields };
}

export type BytesResult = { ok: true; bytes: Buffer } | { ok: false; problems: Problem[] };

/**
 * Decodes escapes of the presentation format (RFC 1035 §5.1): `\DDD` is the octet with decimal value DDD
 * (exactly three digits, at most 255), `\X` is X itself. Text outside ASCII is taken as UTF-8.
 */
export function decodeEscapes(text: string, field: string, what: string): BytesResult {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== '\\') {
      const code = c.codePointAt(0)!;
      if (code < 0x80) out.push(code);
      else {
        const ch = String.fromCodePoint(code);
        out.push(...Buffer.from(ch, 'utf8'));
        i += ch.length - 1;
      }
      continue;
    }
    const next = text[i + 1];
    if (next === undefined) {
      return { ok: false, problems: [problem(field, 'INVALID_ESCAPE', `${field}: ${what} ends with a lone backslash`)] };
    }
    if (next >= '0' && next <= '9') {
      const digits = text.slice(i + 1, i + 4);
      if (!/^[0-9]{3}$/.test(digits) || Number(digits) > 255) {
        return {
          ok: false,
          problems: [
            problem(
              field,
              'INVALID_ESCAPE',
              `${field}: ${what} has the escape "\\${digits}"; a decimal escape is a backslash and exactly three digits 000–255`,
              255,
            ),
          ],
        };
      }
      out.push(Number(digits));
      i += 3;
    } else {
      const code = next.codePointAt(0)!;
      if (code < 0x80) out.push(code);
      else {
        const ch = String.fromCodePoint(code);
        out.push(...Buffer.from(ch, 'utf8'));
        i += ch.length - 1;
      }
      i += 1;
    }
  }
  return { ok: true, bytes: Buffer.from(out) };
}

/**
 * Reads one <character-string> (RFC 1035 §3.3, §5.1): quoted ("two words") or a single unquoted word, with
 * escapes. Longer than 255 octets is refused: it cannot be encoded, and splitting silently would change data.
 * In content that stands alone (`ContentReading.standaloneIn`, the PowerDNS API's) it must be quoted: a bare
 * word is refused (UNQUOTED_STRING) instead of being taken as a string of its own, as a zone file would. Text
 * whose words would each become a string (`v=spf1 mx -all`, three strings that SPF reads joined without spaces,
 * RFC 7208 §3.3) is then never published other than as meant.
 */
export function parseCharacterString(
  raw: string,
  field: string,
  what: string,
  reading: Reading | undefined,
  maxOctets = MAX_CHARACTER_STRING_OCTETS,
): BytesResult {
  let inner = raw;
  if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') && !isEscapedAt(raw, raw.length - 1)) {
    inner = raw.slice(1, -1);
  } else if (standaloneZoneOf(reading) !== undefined) {
    return {
      ok: false,
      problems: [
        problem(
          field,
          'UNQUOTED_STRING',
          `${field}: ${what} ${shorten(raw)} is not quoted: a character-string starts and ends with a double quote`,
        ),
      ],
    };
  }
  if (hasUnescapedQuote(inner)) {
    return {
      ok: false,
      problems: [
        problem(
          field,
          'INVALID_QUOTING',
          `${field}: ${what} ${shorten(raw)} has a double quote inside it; quote the whole string and escape inner quotes as \\"`,
        ),
      ],
    };
  }
  const decoded = decodeEscapes(inner, field, what);
  if (!decoded.ok) return decoded;
  if (decoded.bytes.length > maxOctets) {
    return {
      ok: false,
      problems: [
        problem(
          field,
          'TXT_STRING_TOO_LONG',
          `${field}: ${what} is ${decoded.bytes.length} octets long; a character-string holds at most ${maxOctets} octets (RFC 1035 §3.3)`,
          maxOctets,
        ),
      ],
    };
  }
  return decoded;
}

/** an odd number of backslashes before `index`: the character there is escaped (RFC 1035 §5.1) */
export function isEscapedAt(text: string, index: number): boolean {
  let backslashes = 0;
  for (let i = index - 1; i >= 0 && text[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 1;
}

function hasUnescapedQuote(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') {
      i++;
      continue;
    }
    if (text[i] === '"') return true;
  }
  return false;
}

/**
 * Presentation of octets inside double quotes: `"` and `\` escaped, bytes outside printable ASCII as `\DDD`.
 * Built as character codes and made into one flat string: appending a character at a time makes a chain of one
 * V8 string object per octet, which a held record keeps (a transfer in holds up to 200,000: docs/transfers.md).
 */
export function escapeOctets(bytes: Uint8Array): string {
  const codes: number[] = [];
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) codes.push(0x5c, b);
    else if (b >= 0x20 && b <= 0x7e) codes.push(b);
    else codes.push(0x5c, 0x30 + Math.floor(b / 100), 0x30 + (Math.floor(b / 10) % 10), 0x30 + (b % 10));
  }
  let out = '';
  // String.fromCharCode takes its codes as arguments: a chunk at a time, far below any engine's argument limit
  for (let at = 0; at < codes.length; at += 8192) out += String.fromCharCode(...codes.slice(at, at + 8192));
  return out;
}

/** canonical <character-string>: always double-quoted (RFC 1035 §5.1) */
export function formatCharacterString(bytes: Uint8Array): string {
  return `"${escapeOctets(bytes)}"`;
}

export function shorten(text: string, max = 40): string {
  const s = text.length > max ? text.slice(0, max) + '…' : text;
  return JSON.stringify(s);
}

export interface IntegerSpec {
  type: string;
  /** the name of the field for messages and for the range code: 'preference' -> MX_PREFERENCE_RANGE */
  name: string;
  max: number;
  min?: number;
}

/** An unsigned decimal integer field; range problems carry a per-type code such as `MX_PREFERENCE_RANGE`. */
export function parseUnsigned(text: string, spec: IntegerSpec, problems: Problem[], field = 'rdata'): number | undefined {
  const min = spec.min ?? 0;
  const label = `${spec.type} ${spec.name}`;
  if (!/^[0-9]+$/.test(text)) {
    problems.push(
      ...inRdataField(
        [problem(field, 'INVALID_INTEGER', `${field}: ${label} ${shorten(text)} is not a whole number (expected ${min}–${spec.max})`)],
        spec.name,
      ),
    );
    return undefined;
  }
  const value = Number(text);
  if (value < min || value > spec.max) {
    const code = `${spec.type}_${spec.name.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase()}_RANGE`;
    problems.push(
      ...inRdataField(
        [problem(field, code, `${field}: ${label} ${text.replace(/^0+(?=\d)/, '')} is out of range ${min}–${spec.max}`, spec.max)],
        spec.name,
      ),
    );
    return undefined;
  }
  return value;
}

/** Hexadecimal data, as in DS, TLSA and SSHFP (RFC 4034 §5.3, RFC 6698 §2.2, RFC 4255 §3.2): blanks allowed between digits. */
export function parseHex(parts: string[], what: string, problems: Problem[], field = 'rdata'): Buffer | undefined {
  const text = parts.join('');
  if (text.length === 0) {
    problems.push(problem(field, 'INVALID_HEX', `${field}: ${what} is missing (hexadecimal digits expected)`));
    return undefined;
  }
  if (!/^[0-9A-Fa-f]*$/.test(text)) {
    problems.push(problem(field, 'INVALID_HEX', `${field}: ${what} ${shorten(text)} is not hexadecimal (0-9, A-F)`));
    return undefined;
  }
  if (text.length % 2 !== 0) {
    problems.push(
      problem(field, 'INVALID_HEX', `${field}: ${what} has an odd number of hexadecimal digits (${text.length}); each octet needs two`),
    );
    return undefined;
  }
  return Buffer.from(text, 'hex');
}

/** Base64 as in RFC 4648 §4, padding required (the form DNS presentation formats use, e.g. RFC 9460 ech). */
export function parseBase64(text: string, what: string, problems: Problem[], field = 'rdata'): Buffer | undefined {
  if (text.length === 0 || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) {
    problems.push(problem(field, 'INVALID_BASE64', `${field}: ${what} ${shorten(text)} is not base64 (RFC 4648 §4, with padding)`));
    return undefined;
  }
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') !== text) {
    problems.push(
      problem(field, 'INVALID_BASE64', `${field}: ${what} ${shorten(text)} is not canonical base64 (unused bits must be zero)`),
    );
    return undefined;
  }
  return bytes;
}

/** RDATA_FIELD_COUNT when the number of fields is not what the type needs. */
export function checkFieldCount(
  type: string,
  fields: Field[],
  names: string[],
  problems: Problem[],
  atLeast = false,
  field = 'rdata',
): boolean {
  const ok = atLeast ? fields.length >= names.length : fields.length === names.length;
  if (!ok) {
    const need = atLeast ? `at least ${names.length}` : `${names.length}`;
    problems.push(
      problem(
        field,
        'RDATA_FIELD_COUNT',
        `${field}: ${type} needs ${need} field${names.length === 1 ? '' : 's'} (${names.join(' ')}), got ${fields.length}`,
        names.length,
      ),
    );
  }
  return ok;
}
