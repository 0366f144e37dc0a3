/**
 * Zone checks in the manner of BIND's named-checkzone: problems that make a zone serve less than its author
 * meant, without being invalid, so they are warnings (never refusals) on writes and imports, and the
 * `checkZone` query lists them for a whole zone.
 *
 * - TARGET_IS_CNAME: an MX, NS or SRV target is an alias (RFC 2181 §10.3: they must name a host directly).
 * - TARGET_MISSING: a CNAME, MX, NS or SRV target inside the zone names nothing there (no records, no
 *   wildcard, not an empty non-terminal): resolvers get NXDOMAIN for it.
 * - TARGET_NO_ADDRESS: an in-zone MX, NS or SRV target has records but no A or AAAA.
 * - GLUE_MISSING: a delegation's name server lies below the delegation and has no address here: resolvers
 *   cannot reach it (RFC 1034 §4.2.1, RFC 9471).
 * - OCCLUDED_DATA: data at or below a delegation point other than its NS, DS and the glue addresses of its
 *   own name servers: it is never served (RFC 1034 §4.2.1, RFC 4035 §2.2).
 * - CAA_UNKNOWN_TAG: a CAA property tag not in IANA's registry (`isue`): CAs ignore it (RFC 8659 §4.2), so it
 *   restricts nothing.
 * - SPF_MULTIPLE_RECORDS: a name with more than one TXT beginning "v=spf1": an SPF check of it ends in
 *   permerror (RFC 7208 §3.2, §4.5).
 * - NS_TARGET_NO_ADDRESS: an apex NS whose name server is in the zone (not below a delegation) and has no A or
 *   AAAA there: nobody can reach it (RFC 1034 §4.2.2; BIND refuses to load such a zone). A delegation's NS of
 *   that kind is BIND's warning and loads: it is TARGET_MISSING or TARGET_NO_ADDRESS, as an MX's would be.
 * - APEX_NS_NOT_AT_PARENT: the apex NS set is not the one the parent lists, as the health checker last saw it
 *   (`apexNsNotAtParent`): the two sides of the cut disagree (RFC 1034 §4.2.2), and resolvers follow the parent's
 *   referral until they meet the zone's own set (RFC 2181 §5.4.1).
 *
 * Each finding has a severity (FINDING_SEVERITY): a change set's plan and a single record's write refuse one
 * that makes an error (services/zones/zone-warnings.ts, `refusesChange`) and answer and keep the warnings; an
 * import and `checkZone` answer both as warnings.
 *
 * Plain functions over a zone's records (owners relative, '@' the apex; names in RDATA absolute), so that a
 * write can check the few names it touches and `checkZone` the whole zone with the same code.
 */
import { isAtOrBelow, ownerOf } from './name';
import type { CanonicalRecord } from './record';
import type { WarningCode } from '../errors/catalogue';
import { KNOWN_CAA_TAGS } from './record-types/caa';
import { isSpfRecord } from './record-types/txt';

export type ZoneCheckCode = Extract<
  WarningCode,
  | 'TARGET_IS_CNAME'
  | 'TARGET_MISSING'
  | 'TARGET_NO_ADDRESS'
  | 'NS_TARGET_NO_ADDRESS'
  | 'GLUE_MISSING'
  | 'OCCLUDED_DATA'
  | 'CAA_UNKNOWN_TAG'
  | 'SPF_MULTIPLE_RECORDS'
  | 'APEX_NS_NOT_AT_PARENT'
>;

export type FindingSeverity = 'error' | 'warning';

/**
 * How much each finding weighs in a change set's plan, and the RFC that says so. An error makes a name
 * unreachable or an answer that resolvers must not follow; a warning is probably a mistake, but served as asked.
 */
export const FINDING_SEVERITY: Record<ZoneCheckCode, { severity: FindingSeverity; rfc?: string }> = {
  TARGET_IS_CNAME: { severity: 'error', rfc: 'RFC 2181 §10.3' },
  OCCLUDED_DATA: { severity: 'error', rfc: 'RFC 1034 §4.2.1' },
  GLUE_MISSING: { severity: 'error', rfc: 'RFC 1034 §4.2.1' },
  NS_TARGET_NO_ADDRESS: { severity: 'error', rfc: 'RFC 1034 §4.2.2' },
  TARGET_MISSING: { severity: 'warning', rfc: 'RFC 1034 §3.6.2' },
  TARGET_NO_ADDRESS: { severity: 'warning', rfc: 'RFC 2181 §10.3' },
  CAA_UNKNOWN_TAG: { severity: 'warning', rfc: 'RFC 8659 §4.2' },
  SPF_MULTIPLE_RECORDS: { severity: 'warning', rfc: 'RFC 7208 §3.2' },
  // the parent is changed apart (its registrar), often after the zone: a warning of what is still to do
  APEX_NS_NOT_AT_PARENT: { severity: 'warning', rfc: 'RFC 1034 §4.2.2' },
};

export interface ZoneWarning {
  owner: string;
  type: string;
  code: ZoneCheckCode;
  message: string;
  severity: FindingSeverity;
  rfc?: string;
  /** the RDATA of the record it is about (a plan names the change that adds it) */
  rdata?: string;
}

type ZoneRecord = Pick<CanonicalRecord, 'owner' | 'type' | 'rdata'>;

/** the records whose RDATA names a host, and where the name is (RFC 1035 §3.3, RFC 2782) */
const TARGET_FIELD: Record<string, number> = { CNAME: 0, MX: 1, NS: 0, SRV: 3, ALIAS: 0, ANAME: 0 };
/** types that must point at an address: an alias or a name without addresses is a problem for them */
const NEEDS_ADDRESS = new Set(['MX', 'NS', 'SRV']);
const ADDRESS = new Set(['A', 'AAAA']);
/** what may stand at a delegation point besides NS (RFC 4035 §2.2: DS and the NSEC/RRSIG the parent signs) */
const AT_CUT = new Set(['NS', 'DS', 'NSEC', 'RRSIG']);

/** the in-zone owner a record's RDATA points at, if it points at one */
export function targetOwner(zone: string, record: ZoneRecord): string | undefined {
  const field = TARGET_FIELD[record.type];
  if (field === undefined) return undefined;
  const target = record.rdata.trim().split(/\s+/)[field];
  // the null MX and SRV's "no service" point at the root (RFC 7505, RFC 2782)
  if (!target || target === '.') return undefined;
  return ownerOf(target, zone);
}

/** every ancestor of an owner inside the zone, nearest first, the apex last ('a.b' → 'b', '@') */
export function ancestorsOf(owner: string): string[] {
  if (owner === '@') return [];
  const ancestors: string[] = [];
  for (let dot = owner.indexOf('.'); dot !== -1; dot = owner.indexOf('.', dot + 1)) ancestors.push(owner.slice(dot + 1));
  ancestors.push('@');
  return ancestors;
}

/**
 * The owners a check of `records` needs to see beside them: their in-zone targets and their ancestors (for a
 * delegation above them). A write reads these with its own records, so its warnings cost no scan of the zone.
 */
export function ownersToCheck(zone: string, records: ZoneRecord[]): string[] {
  const owners = new Set<string>();
  for (const record of records) {
    owners.add(record.owner);
    for (const ancestor of ancestorsOf(record.owner)) owners.add(ancestor);
    const target = targetOwner(zone, record);
    if (target === undefined) continue;
    owners.add(target);
    for (const ancestor of ancestorsOf(target)) {
      owners.add(ancestor);
      owners.add(ancestor === '@' ? '*' : `*.${ancestor}`);
    }
  }
  return [...owners];
}

/**
 * The warnings of a zone's records. `records` is the whole zone, or (for a write) at least the records at the
 * owners `ownersToCheck` gives for the records written; `about`, when given, keeps only the warnings about
 * those records (a write reports what it wrote, not the rest of the zone).
 */
export function checkZoneRecords(zone: string, records: ZoneRecord[], about?: ZoneRecord[]): ZoneWarning[] {
  const byOwner = new Map<string, ZoneRecord[]>();
  for (const record of records) {
    const list = byOwner.get(record.owner);
    if (list) list.push(record);
    else byOwner.set(record.owner, [record]);
  }
  const at = (owner: string) => byOwner.get(owner) ?? [];
  const owners = [...byOwner.keys()];
  // a name exists if it has records or something below it (an empty non-terminal, RFC 4592 §2.2.2), or a
  // wildcard of an ancestor answers for it (RFC 4592 §3.3.1, simplified to any ancestor's wildcard)
  // made when a record with a target first asks (an address record, the usual write, has none)
  let namedMade: Set<string> | undefined;
  const named = () => (namedMade ??= new Set(owners.flatMap((o) => [o, ...ancestorsOf(o)])));
  const exists = (owner: string) => named().has(owner) || ancestorsOf(owner).some((a) => at(a === '@' ? '*' : `*.${a}`).length > 0);
  /** the records that answer for a name: its own, or (a name that is not there) its closest wildcard's */
  const answering = (owner: string) => {
    if (named().has(owner)) return at(owner);
    for (const ancestor of ancestorsOf(owner)) {
      const wildcard = at(ancestor === '@' ? '*' : `*.${ancestor}`);
      if (wildcard.length) return wildcard;
    }
    return [];
  };
  const delegations = new Set(owners.filter((o) => o !== '@' && at(o).some((r) => r.type === 'NS')));
  const cutAbove = (owner: string) => (delegations.size ? [owner, ...ancestorsOf(owner)].find((o) => delegations.has(o)) : undefined);
  /** the glue of a delegation: addresses of its name servers that lie at or below it */
  const glueOf = (cut: string) =>
    new Set(
      at(cut)
        .filter((r) => r.type === 'NS')
        .map((r) => targetOwner(zone, r))
        .filter((o): o is string => o !== undefined && isAtOrBelow(o, cut)),
    );

  const warnings: ZoneWarning[] = [];
  const warn = (record: ZoneRecord, code: ZoneCheckCode, message: string) =>
    warnings.push({ owner: record.owner, type: record.type, rdata: record.rdata, code, message, ...FINDING_SEVERITY[code] });
  const name = (owner: string) => (owner === '@' ? `${zone}.` : `${owner}.${zone}.`);

  /** how many SPF records each owner holds, counted when first asked */
  const spfCounts = new Map<string, number>();
  const spfCount = (owner: string) => {
    let count = spfCounts.get(owner);
    if (count === undefined) {
      count = at(owner).filter((r) => r.type === 'TXT' && isSpfRecord(r.rdata)).length;
      spfCounts.set(owner, count);
    }
    return count;
  };

  for (const record of about ?? records) {
    if (record.type === 'CAA') {
      // canonical CAA: flags, tag (lower-case), value
      const tag = record.rdata.split(' ')[1];
      if (tag !== undefined && !KNOWN_CAA_TAGS.has(tag))
        warn(
          record,
          'CAA_UNKNOWN_TAG',
          `${record.owner} CAA: the tag ${tag} is not a CAA property (${[...KNOWN_CAA_TAGS].join(', ')}); CAs ignore it (RFC 8659 §4.2)`,
        );
    } else if (record.type === 'TXT' && isSpfRecord(record.rdata) && spfCount(record.owner) > 1) {
      warn(
        record,
        'SPF_MULTIPLE_RECORDS',
        `${record.owner} TXT: ${name(record.owner)} has ${spfCount(record.owner)} SPF records ("v=spf1"); an SPF check of it fails with permerror (RFC 7208 §3.2, §4.5): merge them into one`,
      );
    }
    const cut = cutAbove(record.owner);
    if (cut !== undefined) {
      const atCut = cut === record.owner;
      const glue = ADDRESS.has(record.type) && glueOf(cut).has(record.owner);
      if (!(atCut && AT_CUT.has(record.type)) && !glue) {
        warn(
          record,
          'OCCLUDED_DATA',
          `${record.owner} ${record.type}: ${atCut ? 'beside' : 'below'} the delegation ${name(cut)}, it is never served (only NS, DS and the name servers' glue addresses are)`,
        );
        continue;
      }
    }
    const target = targetOwner(zone, record);
    if (target === undefined) continue;
    const targetRecords = answering(target);
    const where = `${record.owner} ${record.type} → ${name(target)}`;
    if (record.type === 'NS' && record.owner !== '@' && isAtOrBelow(target, record.owner)) {
      if (!targetRecords.some((r) => ADDRESS.has(r.type)))
        warn(
          record,
          'GLUE_MISSING',
          `${where}: the name server lies inside the delegation and has no address (glue) here, so resolvers cannot reach it`,
        );
      continue;
    }
    // a target below a delegation is the child's to answer for: nothing to say about it here
    if (cutAbove(target) !== undefined) continue;
    if (NEEDS_ADDRESS.has(record.type) && targetRecords.some((r) => r.type === 'CNAME')) {
      warn(
        record,
        'TARGET_IS_CNAME',
        `${where}: the target is an alias (CNAME); ${record.type} must name a host directly (RFC 2181 §10.3)`,
      );
    } else if (record.type === 'NS' && record.owner === '@' && !targetRecords.some((r) => ADDRESS.has(r.type))) {
      warn(
        record,
        'NS_TARGET_NO_ADDRESS',
        `${where}: the name server is in the zone and has no address (A or AAAA) here, so nobody can reach it (RFC 1034 §4.2.2)`,
      );
    } else if (!exists(target)) {
      warn(record, 'TARGET_MISSING', `${where}: no such name in the zone (resolvers get NXDOMAIN for it)`);
    } else if (NEEDS_ADDRESS.has(record.type) && !targetRecords.some((r) => ADDRESS.has(r.type))) {
      warn(record, 'TARGET_NO_ADDRESS', `${where}: the target has no address (A or AAAA)`);
    }
  }
  return warnings;
}

/** a name server's name as compared across the cut: lower case, without the final dot */
const bareNs = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

/**
 * APEX_NS_NOT_AT_PARENT: the zone's apex NS set (`apexNs`, the RDATA of its apex NS records) against the set
 * its parent lists (`parentNs`, as the health checker last read the delegation: repositories/health.ts
 * `parentNsOf`). RFC 1034 §4.2.2 asks that the NS records on both sides of a cut be kept consistent: while
 * they differ, resolvers follow the parent's referral to servers the zone no longer names, or never reach
 * the ones it added, until the zone's own set replaces the referral in their caches (RFC 2181 §5.4.1).
 * Nothing is found when the parent's set is not known (never checked, not delegated, the parent unreachable).
 */
export function apexNsNotAtParent(
  zone: string,
  apexNs: readonly string[],
  parentNs: readonly string[] | undefined,
): ZoneWarning | undefined {
  if (!parentNs) return undefined;
  const ours = [...new Set(apexNs.map(bareNs))].sort();
  const listed = [...new Set(parentNs.map(bareNs))].sort();
  if (ours.length === listed.length && ours.every((ns, i) => ns === listed[i])) return undefined;
  const absolute = (names: readonly string[]) => (names.length ? names.map((ns) => `${ns}.`).join(', ') : 'none');
  const missing = ours.filter((ns) => !listed.includes(ns));
  const extra = listed.filter((ns) => !ours.includes(ns));
  const differences = [
    ...(missing.length ? [`the parent does not list ${absolute(missing)}`] : []),
    ...(extra.length ? [`the parent still lists ${absolute(extra)}`] : []),
  ];
  return {
    owner: '@',
    type: 'NS',
    code: 'APEX_NS_NOT_AT_PARENT',
    ...FINDING_SEVERITY.APEX_NS_NOT_AT_PARENT,
    message: `@ NS: the apex NS of ${zone}. is ${absolute(ours)}; its parent lists ${absolute(listed)} (the health checker's last look): ${differences.join('; ')}; the two sides of the cut should agree (RFC 1034 §4.2.2)`,
  };
}
