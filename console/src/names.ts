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

/** zone names as typed: separated by commas or blanks; none typed: null (every zone) */
export function zoneList(text: string): string[] | null {
  const zones = text
    .split(/[\s,]+/)
    .map((z) => z.trim())
    .filter(Boolean);
  return zones.length ? zones : null;
}
