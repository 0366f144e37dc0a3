/**
 * Domain names: zone names, owner names and host names inside RDATA.
 *
 * Owners and RDATA names take any octet in a label, as the DNS does (RFC 2181 §11), written with the
 * presentation escapes `\.` and `\DDD` (RFC 1035 §5.1). They are stored in one canonical text form: ASCII
 * letters lower-cased (RFC 4343 §2, RFC 4034 §6.2), escapes of plain characters removed (`\100` is `d`), and
 * the characters that are special in master files or not printable escaped as BIND writes them. A label
 * outside letters, digits, hyphen and underscore (the host-name rule of RFC 952 / RFC 1123 §2.1, plus `_`
 * for RFC 8552 leaves) is a *warning* (NAME_NOT_HOSTNAME), as BIND's check-names warns, never a refusal.
 * Raw blanks, control characters, quotes, parentheses and semicolons must be escaped (they end or change a
 * field in a master file). Zone names stay letters, digits, hyphen and underscore.
 * Internationalised names are converted to their A-label (punycode) form (RFC 5890 §2.3.2.1) with node's
 * `url.domainToASCII`, which applies UTS #46 mapping.
 */
import { domainToASCII } from 'node:url';
import { isEscapedAt } from './presentation';
import { Problem, problem } from './problem';
import { nameWarningsOf, originOf, standaloneZoneOf, type Reading } from './reading';

export type NameResult = { ok: true; name: string } | { ok: false; problems: Problem[] };

/** a label is one of: a run of octets (lower-cased ASCII letters) */
type Label = Buffer;

/**
 * octets written as they are in the canonical text: letters, digits, `-`, `_` and `/`. Knot's zone parser
 * takes only these unescaped in a name (BIND takes more), so everything else is escaped: the characters BIND
 * itself escapes as `\\X`, every other octet as `\\DDD` (RFC 1035 §5.1). Not `\\[`: BIND reads that as the
 * start of an RFC 2673 bit-string label, and `\\#` alone would look like RFC 3597's generic-RDATA marker.
 */
const PLAIN = /^[A-Za-z0-9_\/-]$/;
const BIND_ESCAPES = new Set(['.', '"', '(', ')', ';', '\\', '@', '$']);
/** characters that may not appear unescaped in a name given as text: they end or change a master-file field */
const RAW_FORBIDDEN = /[\x00-\x20\x7f"();]/;
/**
 * Each octet's text in a label, decided once: printable ASCII as is, specials backslash-escaped, other octets
 * as \DDD. A label was written character by character through a pattern, the most of reading a name off the wire.
 */
const OCTET_TEXT: readonly string[] = Array.from({ length: 256 }, (_, b) => {
  const c = String.fromCharCode(b);
  if (PLAIN.test(c)) return c;
  if (BIND_ESCAPES.has(c)) return '\\' + c;
  return '\\' + String(b).padStart(3, '0');
});

/**
 * canonical text of the label held in `octets` from `start` to `end` (a message's, read in place). A label of
 * plain octets only (nearly every label) is its octets as text, made at once: written octet by octet, each
 * label made a string per octet.
 */
export function labelTextOf(octets: Buffer, start: number, end: number): string {
  // RFC 4592 §2.1.1: a label of one asterisk is the wildcard, written as is
  if (end - start === 1 && octets[start] === 0x2a) return '*';
  let plain = true;
  for (let i = start; i < end && plain; i++) plain = OCTET_TEXT[octets[i]].length === 1;
  if (plain) return octets.toString('latin1', start, end);
  let out = '';
  for (let i = start; i < end; i++) out += OCTET_TEXT[octets[i]];
  return out;
}

/** canonical text of one label: printable ASCII as is, specials backslash-escaped, other octets as \DDD */
export const labelText = (label: Label): string => labelTextOf(label, 0, label.length);

/**
 * Splits a name in presentation form into labels of octets (RFC 1035 §5.1): an unescaped dot ends a label,
 * `\DDD` is one octet, `\X` is X. Labels without escapes that hold non-ASCII text are IDNA-converted.
 * `absolute` says whether the text ended with an unescaped dot.
 */
function presentationLabels(input: string, rules: LabelRules, lower = true): { labels: Label[]; absolute: boolean; problems: Problem[] } {
  const { field, what } = rules;
  const problems: Problem[] = [];
  const labels: Label[] = [];
  let octets: number[] = [];
  let raw = '';
  let escaped = false;
  let absolute = false;
  const close = () => {
    if (!escaped && /[^\x00-\x7f]/.test(raw)) {
      const ascii = domainToASCII(raw);
      if (!ascii || ascii.includes('.')) {
        problems.push(
          problem(
            field,
            'NAME_IDN_INVALID',
            `${field}: the label ${JSON.stringify(raw)} of ${what} is not a valid internationalised label (IDNA/UTS #46)`,
          ),
        );
        octets = [...Buffer.from(raw, 'utf8')];
      } else octets = [...Buffer.from(ascii, 'ascii')];
    }
    labels.push(Buffer.from(lower ? octets.map((b) => (b >= 0x41 && b <= 0x5a ? b + 0x20 : b)) : octets));
    octets = [];
    raw = '';
    escaped = false;
  };
  const text = input.replace(IDN_DOTS, '.');
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      const next = text[i + 1];
      if (next === undefined) {
        problems.push(problem(field, 'INVALID_ESCAPE', `${field}: ${what} ends with a lone backslash`));
        break;
      }
      escaped = true;
      if (next >= '0' && next <= '9') {
        const digits = text.slice(i + 1, i + 4);
        if (!/^[0-9]{3}$/.test(digits) || Number(digits) > 255) {
          problems.push(
            problem(
              field,
              'INVALID_ESCAPE',
              `${field}: ${what} has the escape "\\${digits}"; a decimal escape is a backslash and exactly three digits 000–255`,
              255,
            ),
          );
          return { labels, absolute, problems };
        }
        octets.push(Number(digits));
        i += 3;
      } else {
        const ch = String.fromCodePoint(text.codePointAt(i + 1)!);
        octets.push(...Buffer.from(ch, 'utf8'));
        i += ch.length;
      }
      continue;
    }
    if (c === '.') {
      if (i === text.length - 1 && (labels.length > 0 || octets.length > 0 || raw !== '')) {
        absolute = true;
        break;
      }
      if (octets.length === 0 && raw === '') {
        problems.push(problem(field, 'NAME_EMPTY_LABEL', `${field}: ${what} has an empty label (two dots in a row, or a leading dot)`));
        return { labels, absolute, problems };
      }
      close();
      continue;
    }
    if (RAW_FORBIDDEN.test(c)) {
      problems.push(
        problem(
          field,
          'NAME_INVALID_CHARACTER',
          `${field}: ${what} contains ${JSON.stringify(c)}; write it escaped as \\${String(c.charCodeAt(0)).padStart(3, '0')} (RFC 1035 §5.1)`,
        ),
      );
      return { labels, absolute, problems };
    }
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    raw += ch;
    octets.push(...Buffer.from(ch, 'utf8'));
    i += ch.length - 1;
  }
  if (octets.length > 0 || raw !== '') close();
  return { labels, absolute, problems };
}

/**
 * The checks a label takes whatever its form (octets read from presentation form, or an A-label): an empty label,
 * and a wildcard out of place (RFC 4592 §2.1.1: the asterisk label is a wildcard only as the left-most label of
 * an owner name). True when the label is either, and so needs no further check.
 */
function emptyOrWildcard(text: string, index: number, rules: LabelRules, problems: Problem[]): boolean {
  const { field, what } = rules;
  if (text.length === 0) {
    problems.push(problem(field, 'NAME_EMPTY_LABEL', `${field}: ${what} has an empty label (two dots in a row, or a leading dot)`));
    return true;
  }
  if (text !== '*') return false;
  if (!rules.wildcard || index !== 0) {
    problems.push(
      problem(
        field,
        'NAME_WILDCARD_POSITION',
        rules.wildcard
          ? `${field}: '*' is allowed only as the whole left-most label of ${what}`
          : `${field}: '*' (wildcard) is not allowed in ${what}`,
      ),
    );
  }
  return true;
}

/** RFC 1035 §2.3.4: labels are 63 octets or less */
function labelLength(text: string, octets: number, rules: LabelRules, problems: Problem[]): void {
  if (octets <= MAX_LABEL_OCTETS) return;
  const { field, what } = rules;
  problems.push(
    problem(
      field,
      'NAME_LABEL_TOO_LONG',
      `${field}: the label ${JSON.stringify(text.slice(0, 20) + '…')} of ${what} is ${octets} octets; the limit is ${MAX_LABEL_OCTETS}`,
      MAX_LABEL_OCTETS,
    ),
  );
}

/** RFC 1035 §2.3.4: names are 255 octets or less (wire form) */
function nameLength(total: number, rules: LabelRules, problems: Problem[]): void {
  if (total <= MAX_NAME_OCTETS) return;
  const { field, what } = rules;
  problems.push(
    problem(field, 'NAME_TOO_LONG', `${field}: ${what} is ${total} octets in wire form; the limit is ${MAX_NAME_OCTETS}`, MAX_NAME_OCTETS),
  );
}

/** Checks labels of octets (no root): empty labels, wildcards, lengths; non-host-name labels are warnings. */
function checkOctetLabels(labels: Label[], rules: LabelRules, fullLabels: Label[] = labels): Problem[] {
  const problems: Problem[] = [];
  const { field, what } = rules;
  labels.forEach((label, index) => {
    const text = labelText(label);
    if (emptyOrWildcard(text, index, rules, problems)) return;
    labelLength(text, label.length, rules, problems);
    if (!LABEL_CHARACTERS.test(text) && rules.warnings) {
      const bad = [...label].find((b) => !/[a-z0-9_-]/.test(String.fromCharCode(b)))!;
      rules.warnings.push(
        problem(
          field,
          'NAME_NOT_HOSTNAME',
          `${field}: the label ${JSON.stringify(text)} of ${what} holds ${bad > 0x20 && bad < 0x7f ? JSON.stringify(String.fromCharCode(bad)) : `the octet ${bad}`}; host names use only letters, digits and hyphen (RFC 1123 §2.1), the DNS allows any octet (RFC 2181 §11)`,
        ),
      );
    }
  });
  nameLength(
    fullLabels.reduce((sum, l) => sum + l.length + 1, 1),
    rules,
    problems,
  );
  return problems;
}

/** labels of a name in presentation form (no trailing dot needed), letter case kept */
export function nameLabels(text: string): Buffer[] {
  if (text === '.' || text === '' || text === '@') return [];
  return presentationLabels(text, { field: 'name', wildcard: true, what: 'the name' }, false).labels;
}

/** a label is at most 63 octets (RFC 1035 §2.3.4) */
export const MAX_LABEL_OCTETS = 63;
/** a name is at most 255 octets in wire form, length octets and the root label included (RFC 1035 §2.3.4) */
export const MAX_NAME_OCTETS = 255;

/** dots that UTS #46 treats as label separators (ideographic and full-width full stops) */
const IDN_DOTS = /[\u3002\uFF0E\uFF61]/g;
const LABEL_CHARACTERS = /^[a-z0-9_-]+$/;
/** an absolute name of host-name labels (letters, digits, hyphen, underscore), each 1–63 octets */
const ABSOLUTE_HOST_NAME = /^(?:[A-Za-z0-9_-]{1,63}\.)+$/;

/** wire length of a name given as labels (without the root): each label + its length octet, + the root octet */
export function wireLength(labels: string[]): number {
  return labels.reduce((sum, label) => sum + Buffer.byteLength(label) + 1, 1);
}

interface LabelRules {
  field: string;
  /** where a warning about a label goes (NAME_NOT_HOSTNAME); none: not collected */
  warnings?: Problem[];
  /** `*` allowed as the whole left-most label (owners: RFC 4592 §2.1.1) */
  wildcard: boolean;
  /** how the name is called in messages */
  what: string;
}

/** Lower-cases ASCII and converts non-ASCII labels to A-labels; problems for labels that cannot be converted. */
function toAsciiLabels(text: string, rules: LabelRules): { labels: string[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const labels = text
    .replace(IDN_DOTS, '.')
    .split('.')
    .map((label) => {
      if (/^[\x00-\x7f]*$/.test(label)) return label.toLowerCase();
      const ascii = domainToASCII(label);
      if (!ascii || ascii.includes('.')) {
        problems.push(
          problem(
            rules.field,
            'NAME_IDN_INVALID',
            `${rules.field}: the label ${JSON.stringify(label)} of ${rules.what} is not a valid internationalised label (IDNA/UTS #46)`,
          ),
        );
        return label;
      }
      return ascii;
    });
  return { labels, problems };
}

/** Checks labels (already lower-case ASCII, no root) for characters, empty labels, wildcards and lengths. */
function checkLabels(labels: string[], rules: LabelRules, fullLabels: string[] = labels): Problem[] {
  const problems: Problem[] = [];
  const { field, what } = rules;
  labels.forEach((label, index) => {
    if (emptyOrWildcard(label, index, rules, problems)) return;
    if (!LABEL_CHARACTERS.test(label)) {
      const bad = [...label].find((c) => !/[a-z0-9_-]/.test(c)) ?? '?';
      problems.push(
        problem(
          field,
          'NAME_INVALID_CHARACTER',
          `${field}: the label ${JSON.stringify(label)} of ${what} contains ${JSON.stringify(bad)}; labels may hold only letters, digits, hyphen and underscore`,
        ),
      );
    }
    labelLength(label, Buffer.byteLength(label), rules, problems);
  });
  nameLength(wireLength(fullLabels), rules, problems);
  return problems;
}

/** Zone names: lower-case, no trailing dot, A-labels, at least one label, no wildcard. */
export function parseZoneName(input: string, field = 'zone'): NameResult {
  const what = 'the zone name';
  let text = String(input ?? '')
    .trim()
    .replace(IDN_DOTS, '.');
  if (text.endsWith('.')) text = text.slice(0, -1);
  if (text.length === 0) {
    return {
      ok: false,
      problems: [problem(field, 'BAD_DOMAIN_NAME', `${field}: a zone name is required and the root zone cannot be managed here`)],
    };
  }
  if (text.includes('\\')) {
    return {
      ok: false,
      problems: [problem(field, 'NAME_INVALID_CHARACTER', `${field}: ${what} contains a backslash; escapes are not accepted in names`)],
    };
  }
  const rules: LabelRules = { field, wildcard: false, what };
  const converted = toAsciiLabels(text, rules);
  if (converted.problems.length) return { ok: false, problems: converted.problems };
  const problems = checkLabels(converted.labels, rules);
  return problems.length ? { ok: false, problems } : { ok: true, name: converted.labels.join('.') };
}

/**
 * The start of a zone name, for the search by prefix: normalised as parseZoneName does (trimmed, lower case,
 * ideographic dots as dots, one final dot dropped, labels of letters, digits, hyphen and underscore), so that it
 * compares with the stored names. A non-ASCII label becomes its A-label even when it is the last, partly typed
 * one: the A-label of a partial U-label is not a prefix of the full one's, so such a prefix finds only zones whose
 * label is exactly what was typed (RFC 5891 §4.4: the conversion works on whole labels). Empty: every zone.
 */
export function parseZoneNamePrefix(input: string, field = 'nameStartsWith'): NameResult {
  let text = String(input ?? '')
    .trim()
    .replace(IDN_DOTS, '.');
  if (text.endsWith('.')) text = text.slice(0, -1);
  if (text.length === 0) return { ok: true, name: '' };
  const rules: LabelRules = { field, wildcard: false, what: 'the zone-name prefix' };
  const converted = toAsciiLabels(text, rules);
  if (converted.problems.length) return { ok: false, problems: converted.problems };
  const problems = checkLabels(converted.labels, rules);
  return problems.length ? { ok: false, problems } : { ok: true, name: converted.labels.join('.') };
}

/** Strips one trailing dot from an absolute zone argument so callers may pass either form. */
function bareZone(zone: string): string {
  const z = zone.trim().toLowerCase();
  return z.endsWith('.') ? z.slice(0, -1) : z;
}

/** a name as compared: ASCII lower case (RFC 4343 §2), without its final dot ('' the root); an escaped dot stays */
function comparableName(name: string): string {
  const n = name.toLowerCase();
  return n.endsWith('.') && !isEscapedAt(n, n.length - 1) ? n.slice(0, -1) : n;
}

/**
 * The owner of `name` in `zone`, as owners are stored: '@' at the apex, the labels before the zone below it,
 * lower case; undefined when the name is not at or below the zone. Either may be given with or without its
 * final dot, in any case; the root zone ('' or '.') holds every name. Labels are compared whole, so
 * `notexample.com` is not in example.com, nor is `www\.example.com` (one label `www.example` under com).
 * The one answer to "where in the zone is this name" for the whole service.
 */
export function ownerOf(name: string, zone: string): string | undefined {
  const n = comparableName(name);
  const z = comparableName(zone);
  if (n === z) return '@';
  if (z === '') return n;
  const dot = n.length - z.length - 1;
  if (dot < 1 || n.charCodeAt(dot) !== 0x2e || !n.endsWith(z) || isEscapedAt(n, dot)) return undefined;
  return n.slice(0, dot);
}

/**
 * Each name above `name`, nearest first: what follows each dot between its labels (an escaped dot is inside a
 * label: `www\.example.com` has `com` above it, not `example.com`). Relative names give relative names.
 */
export function namesAbove(name: string): string[] {
  return [...name.matchAll(/\./g)]
    .map((m) => m.index)
    .filter((at) => !isEscapedAt(name, at))
    .map((at) => name.slice(at + 1));
}

/** `name` is `zone`'s apex or below it (ownerOf's rules) */
export const isAtOrBelow = (name: string, zone: string): boolean => ownerOf(name, zone) !== undefined;

/** a name of host-name labels only (letters, digits, hyphen, underscore; 1–63 each), absolute or not */
const PLAIN_OWNER = /^[A-Za-z0-9_-]{1,63}(?:\.[A-Za-z0-9_-]{1,63})*\.?$/;

/**
 * parseOwner's answer for the common owner, a name of host-name labels inside the zone (every line of a zone
 * file has one): no escape, IDNA, wildcard or warning can apply, so it needs no label parser. Undefined when
 * the name needs the full rules (anything else, or an answer that would be a problem).
 */
function plainOwner(text: string, zone: string): string | undefined {
  if (zone === '' || !PLAIN_OWNER.test(text)) return undefined;
  const inZone = ownerOf(text, zone);
  let relative: string;
  if (inZone === '@') return '@';
  else if (inZone !== undefined) relative = inZone;
  else if (text.endsWith('.')) return undefined;
  else relative = text.toLowerCase();
  // RFC 1035 §2.3.4: 255 octets in wire form, the zone's labels, the length octets and the root's included
  return relative.length + 1 + zone.length + 2 <= MAX_NAME_OCTETS ? relative : undefined;
}

/**
 * Owner names, stored relative to the zone ('@' for the apex). Absolute names inside the zone are made relative;
 * names with a trailing dot outside the zone are refused (a zone holds only data at or below its apex,
 * RFC 1034 §4.2). `_` labels are allowed (RFC 8552 attribute leaves such as `_dmarc`, `_sip._tcp`). A label that
 * is no host name's is a warning, in `warnings` when given.
 */
export function parseOwner(input: string, zone: string, field = 'owner', warnings?: Problem[]): NameResult {
  const z = bareZone(zone);
  const text = String(input ?? '').trim();
  if (text === '' || text === '@') return { ok: true, name: '@' };
  const plain = plainOwner(text, z);
  if (plain !== undefined) return { ok: true, name: plain };
  const rules: LabelRules = { field, wildcard: true, what: 'the owner', warnings };
  const parsed = presentationLabels(text, rules);
  if (parsed.problems.length) return { ok: false, problems: parsed.problems };
  const zoneLabels = z === '' ? [] : z.split('.').map((l) => Buffer.from(l, 'ascii'));
  const labels = parsed.labels;
  const n = zoneLabels.length;
  const endsWithZone = labels.length >= n && zoneLabels.every((l, i) => l.equals(labels[labels.length - n + i]));
  let relative: Label[];
  if (endsWithZone && labels.length === n) {
    return { ok: true, name: '@' };
  } else if (endsWithZone) {
    relative = labels.slice(0, labels.length - n);
  } else if (parsed.absolute) {
    return { ok: false, problems: [problem(field, 'OWNER_OUTSIDE_ZONE', `${field}: ${text} is not inside the zone ${z}.`)] };
  } else {
    relative = labels;
  }
  const problems = checkOctetLabels(relative, rules, [...relative, ...zoneLabels]);
  return problems.length ? { ok: false, problems } : { ok: true, name: relative.map(labelText).join('.') };
}

/** 'www' + 'example.com' -> 'www.example.com.'; '@' -> 'example.com.' */
export function ownerToFqdn(owner: string, zone: string): string {
  const z = bareZone(zone);
  if (owner === '@' || owner === '') return `${z}.`;
  return `${owner}.${z}.`;
}

export interface RdataNameOptions {
  /** the root name '.' is meaningful (null MX RFC 7505, SRV "no service" RFC 2782, SVCB RFC 9460 §2.5, NAPTR) */
  allowRoot?: boolean;
  /** a wildcard owner may be named: NSEC's Next Domain Name is an owner of the zone (RFC 4034 §4.1.1) */
  allowWildcard?: boolean;
}

/**
 * A host name inside RDATA. Relative names are completed with the reading's origin (RFC 1035 §5.1), '@' is the
 * origin; the result is lower-case and absolute (trailing dot). Case is not significant in names (RFC 4343 §2).
 * Content that stands alone (`ContentReading.standaloneIn`) has no origin: a relative name or '@' is refused.
 */
export function parseDomainNameInRdata(input: string, reading: Reading, field: string, options: RdataNameOptions = {}): NameResult {
  const z = bareZone(originOf(reading));
  const standaloneIn = standaloneZoneOf(reading);
  const text = String(input ?? '')
    .trim()
    .replace(IDN_DOTS, '.');
  const what = `the name ${shorten(text)}`;
  if (text === '') {
    return { ok: false, problems: [problem(field, 'NAME_EMPTY', `${field}: a domain name is missing`)] };
  }
  if (text === '@' && standaloneIn !== undefined) return notFullyQualified(text, standaloneIn, field, what);
  if (text === '@') return { ok: true, name: z === '' ? '.' : `${z}.` };
  if (text === '.') {
    if (options.allowRoot) return { ok: true, name: '.' };
    return { ok: false, problems: [problem(field, 'NAME_ROOT_NOT_ALLOWED', `${field}: the root name '.' is not a valid target here`)] };
  }
  // the common case, a stored name as the primary serves it: absolute, host-name labels only. The escape parser
  // would find no problem and no warning in it and give it back lower-cased, so it is skipped (a catalog
  // transfer parses one such name per member: a quarter of its CPU).
  if (text.length <= MAX_NAME_OCTETS - 1 && ABSOLUTE_HOST_NAME.test(text)) return { ok: true, name: text.toLowerCase() };
  const warnings = nameWarningsOf(reading);
  const rules: LabelRules = { field, wildcard: options.allowWildcard ?? false, what, warnings };
  const parsed = presentationLabels(text, rules);
  if (parsed.problems.length) return { ok: false, problems: parsed.problems };
  if (!parsed.absolute && standaloneIn !== undefined) return notFullyQualified(text, standaloneIn, field, what);
  const originLabels = z === '' ? [] : z.split('.').map((l) => Buffer.from(l, 'ascii'));
  const labels = parsed.absolute ? parsed.labels : [...parsed.labels, ...originLabels];
  if (!parsed.absolute && warnings) {
    const repeats = repeatsOrigin(field, text, parsed.labels, originLabels, z);
    if (repeats) warnings.push(repeats);
  }
  const problems = checkOctetLabels(labels, rules);
  return problems.length ? { ok: false, problems } : { ok: true, name: labels.map(labelText).join('.') + '.' };
}

/**
 * RFC 1035 §5.1 completes a relative name with the origin, so `mx.example.com` in example.com is
 * mx.example.com.example.com.: correct, and almost never meant. The one warning for it, an owner's or a
 * target's (RELATIVE_NAME_REPEATS_ZONE): the API refuses such a target, an import warns. `relative` are the
 * labels as written, `origin` the origin's.
 */
function repeatsOrigin(field: string, text: string, relative: Label[], origin: Label[], originName: string): Problem | undefined {
  const n = origin.length;
  if (n === 0 || relative.length <= n || !origin.every((l, i) => l.equals(relative[relative.length - n + i]))) return undefined;
  const meant = [...relative, ...origin].map(labelText).join('.');
  return problem(
    field,
    'RELATIVE_NAME_REPEATS_ZONE',
    `${field}: the relative name ${shorten(text)} already ends with ${originName}, so it means ${meant}.; did you mean "${text}."?`,
  );
}

/**
 * A zone file's relative owner (`www.example.com` under the origin example.com, without its final dot) that
 * repeats the origin: the same warning as a target's. Undefined for any other owner; a malformed one is the
 * owner parser's to report.
 */
export function relativeOwnerRepeatsOrigin(owner: string, origin: string, field = 'owner'): Problem | undefined {
  const o = bareZone(origin);
  // most owners do not end with the origin's text: no labels to read (a zone file has one owner per line)
  const below = o === '' ? undefined : ownerOf(owner, o);
  if (below === undefined || below === '@') return undefined;
  const parsed = presentationLabels(owner.trim(), { field, wildcard: true, what: 'the owner' });
  if (parsed.problems.length || parsed.absolute) return undefined;
  return repeatsOrigin(
    field,
    owner.trim(),
    parsed.labels,
    o.split('.').map((l) => Buffer.from(l, 'ascii')),
    o,
  );
}

/**
 * a relative name (or `@`) where content has no origin (`ContentReading.standaloneIn`); the name suggested is the one
 * a zone file would have meant in `zone`: one label (`mail`) or `@` is the zone's (`mail.example.com.`), a name
 * that already ends with the zone's or has several labels is taken with its final dot
 */
function notFullyQualified(text: string, standaloneIn: string, field: string, what: string): NameResult {
  const zone = bareZone(standaloneIn);
  const lower = text.toLowerCase();
  const suggested =
    zone === '' || lower === zone || lower.endsWith(`.${zone}`) || text.includes('.')
      ? `${text}.`
      : text === '@'
        ? `${zone}.`
        : `${text}.${zone}.`;
  const meant = `; did you mean "${suggested}"?`;
  const message = `${field}: ${what} is not in expected format: a name in record content is fully qualified, ending with the root's dot${meant}`;
  return { ok: false, problems: [problem(field, 'NAME_NOT_FULLY_QUALIFIED', message)] };
}

function shorten(text: string): string {
  return JSON.stringify(text.length > 40 ? text.slice(0, 40) + '…' : text);
}
