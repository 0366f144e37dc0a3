/**
 * Domain names: zone names, owner names and host names inside RDATA.
 *
 * We accept a deliberately narrow alphabet: letters, digits, hyphen and underscore per label (plus `*` as a
 * whole left-most owner label). The DNS itself allows any octet in a label (RFC 2181 §11), but names with dots,
 * blanks or control characters inside labels are almost always typing mistakes, cannot be given to dns-packet,
 * and are a hazard in zone files. Internationalised names are converted to their A-label (punycode) form
 * (RFC 5890 §2.3.2.1) with node's `url.domainToASCII`, which applies UTS #46 mapping.
 */
import { domainToASCII } from 'node:url';
import { Problem, problem } from './problem';

export type NameResult = { ok: true; name: string } | { ok: false; problems: Problem[] };

/** a label is at most 63 octets (RFC 1035 §2.3.4) */
export const MAX_LABEL_OCTETS = 63;
/** a name is at most 255 octets in wire form, length octets and the root label included (RFC 1035 §2.3.4) */
export const MAX_NAME_OCTETS = 255;

/** dots that UTS #46 treats as label separators (ideographic and full-width full stops) */
const IDN_DOTS = /[\u3002\uFF0E\uFF61]/g;
const LABEL_CHARACTERS = /^[a-z0-9_-]+$/;

/** wire length of a name given as labels (without the root): each label + its length octet, + the root octet */
export function wireLength(labels: string[]): number {
  return labels.reduce((sum, label) => sum + Buffer.byteLength(label) + 1, 1);
}

interface LabelRules {
  field: string;
  /** `*` allowed as the whole left-most label (owners: RFC 4592 §2.1.1) */
  wildcard: boolean;
  /** how the name is called in messages */
  what: string;
}

/** Lower-cases ASCII and converts non-ASCII labels to A-labels; problems for labels that cannot be converted. */
function toAsciiLabels(text: string, rules: LabelRules): { labels: string[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const labels = text.replace(IDN_DOTS, '.').split('.').map((label) => {
    if (/^[\x00-\x7f]*$/.test(label)) return label.toLowerCase();
    const ascii = domainToASCII(label);
    if (!ascii || ascii.includes('.')) {
      problems.push(problem(rules.field, 'NAME_IDN_INVALID', `${rules.field}: the label ${JSON.stringify(label)} of ${rules.what} is not a valid internationalised label (IDNA/UTS #46)`));
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
    if (label.length === 0) {
      problems.push(problem(field, 'NAME_EMPTY_LABEL', `${field}: ${what} has an empty label (two dots in a row, or a leading dot)`));
      return;
    }
    if (label === '*') {
      // RFC 4592 §2.1.1: the asterisk label is a wildcard only as the left-most label of an owner name
      if (!rules.wildcard || index !== 0) {
        problems.push(problem(field, 'NAME_WILDCARD_POSITION', rules.wildcard
          ? `${field}: '*' is allowed only as the whole left-most label of ${what}`
          : `${field}: '*' (wildcard) is not allowed in ${what}`));
      }
      return;
    }
    if (!LABEL_CHARACTERS.test(label)) {
      const bad = [...label].find((c) => !/[a-z0-9_-]/.test(c)) ?? '?';
      problems.push(problem(field, 'NAME_INVALID_CHARACTER', `${field}: the label ${JSON.stringify(label)} of ${what} contains ${JSON.stringify(bad)}; labels may hold only letters, digits, hyphen and underscore`));
    }
    const octets = Buffer.byteLength(label);
    if (octets > MAX_LABEL_OCTETS) {
      // RFC 1035 §2.3.4: labels are 63 octets or less
      problems.push(problem(field, 'NAME_LABEL_TOO_LONG', `${field}: the label ${JSON.stringify(label.slice(0, 20) + '…')} of ${what} is ${octets} octets; the limit is ${MAX_LABEL_OCTETS}`, MAX_LABEL_OCTETS));
    }
  });
  const total = wireLength(fullLabels);
  if (total > MAX_NAME_OCTETS) {
    // RFC 1035 §2.3.4: names are 255 octets or less (wire form)
    problems.push(problem(field, 'NAME_TOO_LONG', `${field}: ${what} is ${total} octets in wire form; the limit is ${MAX_NAME_OCTETS}`, MAX_NAME_OCTETS));
  }
  return problems;
}

/** Zone names: lower-case, no trailing dot, A-labels, at least one label, no wildcard. */
export function parseZoneName(input: string, field = 'zone'): NameResult {
  const what = 'the zone name';
  let text = String(input ?? '').trim().replace(IDN_DOTS, '.');
  if (text.endsWith('.')) text = text.slice(0, -1);
  if (text.length === 0) {
    return { ok: false, problems: [problem(field, 'BAD_DOMAIN_NAME', `${field}: a zone name is required and the root zone cannot be managed here`)] };
  }
  if (text.includes('\\')) {
    return { ok: false, problems: [problem(field, 'NAME_INVALID_CHARACTER', `${field}: ${what} contains a backslash; escapes are not accepted in names`)] };
  }
  const rules: LabelRules = { field, wildcard: false, what };
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

/**
 * Owner names, stored relative to the zone ('@' for the apex). Absolute names inside the zone are made relative;
 * names with a trailing dot outside the zone are refused (a zone holds only data at or below its apex,
 * RFC 1034 §4.2). `_` labels are allowed (RFC 8552 attribute leaves such as `_dmarc`, `_sip._tcp`).
 */
export function parseOwner(input: string, zone: string, field = 'owner'): NameResult {
  const z = bareZone(zone);
  let text = String(input ?? '').trim().replace(IDN_DOTS, '.');
  if (text === '' || text === '@') return { ok: true, name: '@' };
  if (text.includes('\\')) {
    return { ok: false, problems: [problem(field, 'NAME_INVALID_CHARACTER', `${field}: the owner contains a backslash; escapes are not accepted in names`)] };
  }
  const absolute = text.endsWith('.');
  if (absolute) text = text.slice(0, -1);
  const rules: LabelRules = { field, wildcard: true, what: 'the owner' };
  const converted = toAsciiLabels(text, rules);
  if (converted.problems.length) return { ok: false, problems: converted.problems };
  const lowered = converted.labels.join('.');
  let relative: string;
  if (lowered === z) {
    return { ok: true, name: '@' };
  } else if (lowered.endsWith('.' + z)) {
    relative = lowered.slice(0, -(z.length + 1));
  } else if (absolute) {
    return { ok: false, problems: [problem(field, 'OWNER_OUTSIDE_ZONE', `${field}: ${input.trim()} is not inside the zone ${z}.`)] };
  } else {
    relative = lowered;
  }
  const labels = relative.split('.');
  const problems = checkLabels(labels, rules, [...labels, ...z.split('.')]);
  return problems.length ? { ok: false, problems } : { ok: true, name: relative };
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
}

/**
 * A host name inside RDATA. Relative names are completed with the origin (RFC 1035 §5.1), '@' is the origin;
 * the result is lower-case and absolute (trailing dot). Case is not significant in names (RFC 4343 §2).
 */
export function parseDomainNameInRdata(input: string, zone: string, field: string, options: RdataNameOptions = {}): NameResult {
  const z = bareZone(zone);
  let text = String(input ?? '').trim().replace(IDN_DOTS, '.');
  const what = `the name ${shorten(text)}`;
  if (text === '') {
    return { ok: false, problems: [problem(field, 'NAME_EMPTY', `${field}: a domain name is missing`)] };
  }
  if (text === '@') return { ok: true, name: z === '' ? '.' : `${z}.` };
  if (text === '.') {
    if (options.allowRoot) return { ok: true, name: '.' };
    return { ok: false, problems: [problem(field, 'NAME_ROOT_NOT_ALLOWED', `${field}: the root name '.' is not a valid target here`)] };
  }
  if (text.includes('\\')) {
    return { ok: false, problems: [problem(field, 'NAME_INVALID_CHARACTER', `${field}: ${what} contains a backslash; escapes are not accepted in names`)] };
  }
  const absolute = text.endsWith('.');
  if (absolute) text = text.slice(0, -1);
  const rules: LabelRules = { field, wildcard: false, what };
  const converted = toAsciiLabels(text, rules);
  if (converted.problems.length) return { ok: false, problems: converted.problems };
  const labels = absolute || z === '' ? converted.labels : [...converted.labels, ...z.split('.')];
  const problems = checkLabels(labels, rules);
  return problems.length ? { ok: false, problems } : { ok: true, name: labels.join('.') + '.' };
}

function shorten(text: string): string {
  return JSON.stringify(text.length > 40 ? text.slice(0, 40) + '…' : text);
}

/** 'www.example.com.' -> 'www.example.com', '.' -> '.' : the form dns-packet takes */
export function toPacketName(absoluteName: string): string {
  if (absoluteName === '.' || absoluteName === '') return '.';
  return absoluteName.endsWith('.') ? absoluteName.slice(0, -1) : absoluteName;
}

/** wire form of an absolute name (RFC 1035 §3.1), for RDATA we encode ourselves (RFC 3597 unknown types) */
export function nameToWire(absoluteName: string): Buffer {
  const labels = absoluteName === '.' ? [] : toPacketName(absoluteName).split('.');
  const parts: Buffer[] = [];
  for (const label of labels) {
    const bytes = Buffer.from(label, 'ascii');
    parts.push(Buffer.from([bytes.length]), bytes);
  }
  parts.push(Buffer.from([0]));
  return Buffer.concat(parts);
}
