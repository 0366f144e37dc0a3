import { toUnicode } from 'punycode/';

/**
 * A zone name as people read it: its A-labels (`xn--…`, RFC 5890 §2.3.2.1, as the API stores them) turned into
 * U-labels by the punycode package's toUnicode (RFC 3492). A label that is not valid punycode stays as it is.
 */
export function unicodeName(name: string): string {
  if (!name.includes('xn--')) return name;
  try {
    return toUnicode(name);
  } catch {
    return name;
  }
}

/** one collator for zone names in their Unicode form: `bücher` sorts beside `bucher`, not among the `x`s */
const nameCollator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** compares two zone names as people read them (Unicode forms), ties broken by the stored name */
export function compareZoneNames(a: string, b: string): number {
  return nameCollator.compare(unicodeName(a), unicodeName(b)) || (a < b ? -1 : a > b ? 1 : 0);
}
