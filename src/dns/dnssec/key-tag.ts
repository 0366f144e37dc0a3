/**
 * The key tag of a DNSKEY (RFC 4034 Appendix B): a 16-bit checksum of its RDATA that RRSIG and DS records use
 * to point at the key. Algorithm 1 (RSA/MD5) had another rule; it is not signed with here (RFC 8624 §3.1).
 */
export function keyTag(dnskeyRdata: Buffer): number {
  let accumulator = 0;
  for (let i = 0; i < dnskeyRdata.length; i++) accumulator += i & 1 ? dnskeyRdata[i] : dnskeyRdata[i] << 8;
  accumulator += (accumulator >> 16) & 0xffff;
  return accumulator & 0xffff;
}
