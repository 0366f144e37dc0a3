/**
 * The zone of a query name: the longest of our zones' names the name is in or at. Authoritative responses from
 * some servers name their zone, client responses (Knot, dnsdist, BIND for RD queries) do not: the zone is found
 * here for all alike, by looking its suffixes up from the longest, one map look-up per label.
 */

export interface MatchedName {
  zoneId: number;
  /** the owner relative to the zone, `@` at its apex (as records store it) */
  owner: string;
}

/** the positions just after each label's dot in a presentation name, escapes (`\.`, `\046`) skipped */
function labelStarts(name: string): number[] {
  const starts = [0];
  for (let i = 0; i < name.length; i++) {
    if (name[i] === '\\') i += /\d/.test(name[i + 1] ?? '') ? 3 : 1;
    else if (name[i] === '.' && i + 1 < name.length) starts.push(i + 1);
  }
  return starts;
}

export class ZoneMatcher {
  constructor(private readonly zones: ReadonlyMap<string, number>) {}

  get size(): number {
    return this.zones.size;
  }

  /** `name`: lower case, absolute (`www.example.com.`); undefined when it is in none of the zones */
  match(name: string): MatchedName | undefined {
    const relative = name.endsWith('.') ? name.slice(0, -1) : name;
    if (relative === '') return undefined;
    for (const start of labelStarts(relative)) {
      const zoneId = this.zones.get(start === 0 ? relative : relative.slice(start));
      if (zoneId !== undefined) return { zoneId, owner: start === 0 ? '@' : relative.slice(0, start - 1) };
    }
    return undefined;
  }
}
