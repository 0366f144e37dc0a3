import { parse } from 'tldts';

/**
 * The Public Suffix List (https://publicsuffix.org/), as the `tldts` package ships it: names under which
 * anyone may register a name of their own, ICANN's (`com`, `co.uk`) and the private section's (`github.io`).
 * The list comes compiled into the package, so the check needs no network; it is as fresh as the installed
 * version of `tldts`.
 */
const OPTIONS = {
  allowPrivateDomains: true,
  // a zone name is already a normalised name (lower case, A-labels), not a URL; and it may hold labels a host
  // name may not (`_dmarc`, RFC 8552), which must not make the lookup give up
  extractHostname: false,
  validateHostname: false,
  detectIp: false,
} as const;

/**
 * Whether the name is itself listed as a public suffix (or matched by a wildcard rule such as `*.ck`). A name
 * whose last label is not on the list at all (`test`, `example`, `invalid`, `localhost`: RFC 6761's
 * special-use names) only falls under the list's implicit `*` rule, which says nothing about who may register
 * there: those are not counted as public suffixes.
 */
export function isPublicSuffix(name: string): boolean {
  const parsed = parse(name, OPTIONS);
  return parsed.publicSuffix === name && (parsed.isIcann === true || parsed.isPrivate === true);
}

/** the name and its ancestors, nearest first: `a.example.com` → `a.example.com`, `example.com`, `com` */
export function selfAndAncestors(name: string): string[] {
  const labels = name.split('.');
  return labels.map((_, i) => labels.slice(i).join('.'));
}
