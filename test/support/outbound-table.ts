/**
 * The addresses every outbound caller's test aims at (src/outbound/addresses.ts): each a range a user or a zone
 * could point the service at that is not the public internet. Refused alike by every caller unless its
 * allow-list setting names it.
 */
export const REFUSED_ADDRESSES = [
  ['198.51.100.53', 'documentation (RFC 5737)'],
  ['10.0.0.1', 'private (RFC 1918)'],
  ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1 (RFC 6052)'],
  ['2002:a00:1::1', '6to4 of 10.0.0.1 (RFC 3056)'],
  ['2001:0::1', 'Teredo (RFC 4380)'],
  ['127.0.0.1', 'loopback: the service listens there'],
  ['::1', 'loopback'],
  ['169.254.169.254', 'link-local: cloud metadata'],
  ['100.64.0.1', 'shared address space (RFC 6598)'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:a00:1', 'IPv4-mapped private, hex form'],
  ['::10.0.0.1', 'IPv4-compatible'],
] as const;
