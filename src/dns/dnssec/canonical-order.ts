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
