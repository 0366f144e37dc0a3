/**
 * Canonical DNS name order (RFC 4034 §6.1) as a byte string, for an index: the wire module compares names
 * (`compareCanonicalNames`); PostgreSQL orders `bytea` by its octets, so the chain's neighbours are one
 * index look-up away (docs/dnssec.md).
 */
import { wireLabels } from '../wire';

const lower = (octet: number) => (octet >= 0x41 && octet <= 0x5a ? octet + 0x20 : octet);

/**
 * A byte string whose plain octet order (memcmp, PostgreSQL's bytea order) is the canonical order of the
 * names: labels from the root down, each lower-cased and ended by 0x00; octets 0x00 and 0x01 inside a label
 * are written as 0x01 0x00 and 0x01 0x01 so that a label's end still sorts before any octet in it.
 */
export function canonicalSortKey(labels: readonly Buffer[]): Buffer {
  // written into one buffer of the exact size: a signed write builds a few of these, a zone's signing one per name
  let size = 0;
  for (const label of labels) {
    size += label.length + 1;
    for (let i = 0; i < label.length; i++) if (label[i] <= 1) size++;
  }
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (let l = labels.length - 1; l >= 0; l--) {
    const label = labels[l];
    for (let i = 0; i < label.length; i++) {
      const o = lower(label[i]);
      if (o <= 1) out[at++] = 1;
      out[at++] = o;
    }
    out[at++] = 0;
  }
  return out;
}

/** the sort keys last made, by absolute name: a signed write asks its new owner's three times (forecast, questions, chain) */
const sortKeys = new Map<string, Buffer>();
const SORT_KEYS_KEPT = 4096;

/** `canonicalSortKey` of a name in presentation form, absolute; the buffer is shared: never written to */
export function nameSortKey(absoluteName: string): Buffer {
  let key = sortKeys.get(absoluteName);
  if (!key) {
    key = canonicalSortKey(wireLabels(absoluteName));
    if (sortKeys.size >= SORT_KEYS_KEPT) sortKeys.clear();
    sortKeys.set(absoluteName, key);
  }
  return key;
}
