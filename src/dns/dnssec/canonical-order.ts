/**
 * Canonical DNS name order (RFC 4034 §6.1): names are compared label by label from the root down, each label
 * as a string of octets with upper-case ASCII letters taken as lower case; a name that runs out of labels
 * first sorts first. NSEC chains follow this order (RFC 4034 §4.1.1).
 */
export function compareCanonicalLabels(a: readonly Buffer[], b: readonly Buffer[]): number {
  for (let i = 1; i <= Math.min(a.length, b.length); i++) {
    const order = compareLabel(a[a.length - i], b[b.length - i]);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

const lower = (octet: number) => (octet >= 0x41 && octet <= 0x5a ? octet + 0x20 : octet);

function compareLabel(a: Buffer, b: Buffer): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const difference = lower(a[i]) - lower(b[i]);
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}

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
