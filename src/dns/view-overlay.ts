/** one RRset as a view's zone and the base hold it */
export interface OverlaidRr {
  owner: string;
  type: string;
  ttl: number;
  rdata: string;
}

/** a view's overlay of one RRset (docs/views.md): its own records in place of the base's, or none at all */
export interface OverlayRule {
  owner: string;
  type: string;
  action: 'replace' | 'hide';
  /** the view's records of the RRset (replace); none for hide */
  records: readonly { ttl: number; rdata: string }[];
}

/** a view's records at some owners over the base's: the base's RRsets it overrides left out, its own put in */
export function applyOverlay<T extends OverlaidRr>(base: T[], overlays: readonly OverlayRule[]): (T | OverlaidRr)[] {
  if (!overlays.length) return base;
  const overridden = new Set(overlays.map((o) => `${o.owner} ${o.type}`));
  const kept: (T | OverlaidRr)[] = base.filter((r) => !overridden.has(`${r.owner} ${r.type}`));
  for (const o of overlays)
    if (o.action === 'replace') for (const r of o.records) kept.push({ owner: o.owner, type: o.type, ttl: r.ttl, rdata: r.rdata });
  return kept;
}
