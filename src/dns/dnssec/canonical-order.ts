/**
 * Canonical DNS name order (RFC 4034 §6.1) as a byte string, for an index: the wire module compares names
 * (`compareCanonicalNames`); PostgreSQL orders `bytea` by its octets, so the chain's neighbours are one
 * index look-up away (docs/dnssec.md).
 */
const lower = (octet: number) => (octet >= 0x41 && octet <= 0x5a ? octet + 0x20 : octet);

/**
 * A byte string whose plain octet order (memcmp, PostgreSQL's bytea order) is the canonical order of the
 * names: labels from the root down, each lower-cased and ended by 0x00; octets 0x00 and 0x01 inside a label
 * are written as 0x01 0x00 and 0x01 0x01 so that a label's end still sorts before any octet in it.
 */
export function canonicalSortKey(labels: readonly Buffer[]): Buffer {
  const out: number[] = [];
  for (let i = labels.length - 1; i >= 0; i--) {
    for (const octet of labels[i]) {
      const o = lower(octet);
      if (o <= 1) out.push(1, o);
      else out.push(o);
    }
    out.push(0);
  }
  return Buffer.from(out);
}
