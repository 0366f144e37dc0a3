/**
 * Answering an ordinary query for zone data (RFC 1034 §4.3.2, within one zone: no recursion, no out-of-zone
 * chasing): referrals below delegations with their glue, DNAME (RFC 6672) with a synthesised CNAME, CNAME
 * chains followed inside the zone, exact matches, wildcards (RFC 4592) from the closest encloser, NODATA and
 * NXDOMAIN with the SOA in the authority section for negative caching (RFC 2308 §3), and the additional
 * section's addresses of in-zone NS, MX and SRV targets (RFC 1034 §4.3.2 step 6, RFC 2782), as BIND and Knot
 * answer.
 */
import type { Sql } from '../db/pool';
import { isAtOrBelow, namesAbove, ownerOf } from '../dns/name';
import { FirstRead, hasDescendants, recordsAt, Rr, signerRecordsAt, soaOf, ZoneRef } from '../repositories/dns-zone-data';

export interface LookupResult {
  rcode: 0 | 3;
  authoritative: boolean;
  answers: Rr[];
  authorities: Rr[];
  /** A/AAAA of the in-zone names the answer or the referral names (glue for a referral) */
  additionals: Rr[];
  /** a referral: its glue must fit, or the answer is truncated (RFC 9471 §3) */
  referral: boolean;
  /** owners in answers are relative to the zone, or absolute (ending with '.') for synthesised names */
}

/** how many CNAMEs of one answer are followed inside the zone (BIND follows up to 16; loops end here too) */
const MAX_CNAME_CHAIN = 8;

/** the host names an RR's RDATA points at, whose addresses go in the additional section (RFC 1034 §3.6, RFC 2782) */
function targetsOf(rr: Rr): string[] {
  const fields = rr.rdata.trim().split(/\s+/);
  switch (rr.type) {
    case 'NS':
      return [fields[0]];
    case 'MX':
      return [fields[1]];
    case 'SRV':
      return [fields[3]];
    default:
      return [];
  }
}

/** the A and AAAA records of the in-zone targets of `rrs`, targets named once, in the order named */
async function addressesOf(sql: Sql, zone: ZoneRef, rrs: Rr[]): Promise<Rr[]> {
  const owners = [
    ...new Set(
      rrs
        .flatMap(targetsOf)
        .map((t) => ownerOf(t, zone.name))
        .filter((o): o is string => o !== undefined),
    ),
  ];
  if (!owners.length) return [];
  const found = await recordsAt(sql, zone, owners);
  return owners.flatMap((o) => found.filter((r) => r.owner === o && (r.type === 'A' || r.type === 'AAAA')));
}

/** the names above an owner in its zone, nearest first, the apex last (none above the apex) */
function ancestorsOf(owner: string): string[] {
  return owner === '@' ? [] : [...namesAbove(owner), '@'];
}

const wildcardAt = (owner: string) => (owner === '@' ? '*' : `*.${owner}`);

function negativeSoa(soa: Rr): Rr {
  const minimum = Number(soa.rdata.trim().split(/\s+/)[6]);
  return { ...soa, ttl: Number.isFinite(minimum) ? Math.min(soa.ttl, minimum) : soa.ttl };
}

function pick(records: Rr[], qtype: string): Rr[] {
  return qtype === 'ANY' ? records : records.filter((r) => r.type === qtype);
}

/** the signer's RRsets at a signed zone's apex that a query may ask for by type (ANY: all of them) */
const APEX_SIGNER_TYPES = ['DNSKEY', 'CDS', 'CDNSKEY', 'ANY'];

/**
 * With DO set (RFC 3225, RFC 4035 §3.1.1): each RRset of the answer and authority sections followed by its
 * RRSIGs, as the signer stored them at that owner. RRsets with none (a wildcard's answer under the query
 * name, a DNAME's synthesised CNAME, a delegation's NS) go unsigned; negative answers carry no NSEC or NSEC3
 * proof (docs/dns-known-differences.md: the secondaries serve the signed zone, from the transfer).
 */
export async function withSignatures(sql: Sql, zone: ZoneRef, result: LookupResult): Promise<LookupResult> {
  const sections = [result.answers, result.authorities];
  const owners = [...new Set(sections.flat().map((r) => r.owner))].filter((o) => !o.endsWith('.'));
  const signatures = await signerRecordsAt(sql, zone, owners, ['RRSIG']);
  if (!signatures.length) return result;
  const coveredType = (rrsig: Rr) => rrsig.rdata.trim().split(/\s+/)[0].toUpperCase();
  // a section's records, then the RRSIGs of its RRsets in their order (RFC 4035 §3.1.1 puts them in the same
  // section, in no particular place)
  const signed = (records: Rr[]) => {
    const rrsets = new Set(records.map((r) => `${r.owner} ${r.type}`));
    return [...records, ...[...rrsets].flatMap((rrset) => signatures.filter((s) => rrset === `${s.owner} ${coveredType(s)}`))];
  };
  return { ...result, answers: signed(result.answers), authorities: signed(result.authorities) };
}

type NameResult = Omit<LookupResult, 'additionals' | 'referral'> & { referral?: boolean };

/**
 * The owners a look-up of `qname` in `zoneName` reads first, in one statement: the name, each name above it to the
 * apex (delegations and DNAMEs above it; the apex's SOA for a negative answer), and the wildcard below each.
 */
function firstOwners(qname: string, zoneName: string): string[] {
  const owner = ownerOf(qname, zoneName);
  if (owner === undefined) return [];
  const ancestors = ancestorsOf(owner);
  return [...new Set([owner, ...ancestors, ...[owner, ...ancestors].map(wildcardAt)])];
}

/**
 * The answer to `qname`'s `qtype` in `zone`. `first`: the records at `firstOwners` already read with the zone
 * (repositories/dns-zone-data.ts, `findZone`), read again otherwise.
 */
export async function lookup(sql: Sql, zone: ZoneRef, qname: string, qtype: string, first?: FirstRead): Promise<LookupResult> {
  let result = await lookupName(sql, zone, qname, qtype, first);
  const answers = [...result.answers];
  // RFC 1034 §4.3.2 step 3a: a CNAME answer goes on with its target, while the target is in this zone
  const seen = new Set([qname]);
  for (let hop = 0; hop < MAX_CNAME_CHAIN && qtype !== 'CNAME' && qtype !== 'ANY'; hop++) {
    const last = result.answers[result.answers.length - 1];
    if (!last || last.type !== 'CNAME' || result.answers.some((r) => r.type === qtype)) break;
    const target = last.rdata.trim().toLowerCase().replace(/\.$/, '');
    if (!isAtOrBelow(target, zone.name) || seen.has(target)) break;
    seen.add(target);
    const next = await lookupName(sql, zone, target, qtype);
    // the chain's answers stay; the target's outcome decides the RCODE and the authority section
    answers.push(...next.answers);
    result = { ...next, authoritative: result.authoritative && next.authoritative };
    if (next.referral) break;
  }
  const referral = Boolean(result.referral);
  const additionals = await addressesOf(sql, zone, referral ? result.authorities : answers);
  return { rcode: result.rcode, authoritative: result.authoritative, answers, authorities: result.authorities, additionals, referral };
}

async function lookupName(sql: Sql, zone: ZoneRef, qname: string, qtype: string, first?: FirstRead): Promise<NameResult> {
  // findZone chose the zone that holds qname
  const owner = ownerOf(qname, zone.name)!;
  const ancestors = ancestorsOf(owner);
  const owners = firstOwners(qname, zone.name);
  // the records read with the zone serve when they were read at these very owners
  const readAlready = first && first.owners.length === owners.length && owners.every((o) => first.owners.includes(o));
  const found = readAlready ? [...first.records] : await recordsAt(sql, zone, owners);
  // a signed zone's apex DNSKEY, CDS and CDNSKEY are the signer's (dnssec_records), data all the same: asked
  // for, they are answered (RFC 4035 §3.1; RFC 7344 §4: the parent's CDS scanner asks the zone's servers)
  if (owner === '@' && APEX_SIGNER_TYPES.includes(qtype)) found.push(...(await signerRecordsAt(sql, zone, ['@'], APEX_SIGNER_TYPES)));
  const at = (o: string) => found.filter((r) => r.owner === o);

  // delegations and DNAMEs above the name, from the apex down (the highest one wins)
  for (const ancestor of [...ancestors].reverse()) {
    if (ancestor === '@') continue;
    const ns = at(ancestor).filter((r) => r.type === 'NS');
    if (ns.length) return { rcode: 0, authoritative: false, answers: [], authorities: ns, referral: true };
  }
  for (const ancestor of [...ancestors].reverse()) {
    const dname = at(ancestor).find((r) => r.type === 'DNAME');
    if (dname) {
      // RFC 6672 §2.2: the query name's prefix moved under the DNAME target, as a CNAME with the DNAME's TTL
      const prefix = owner.slice(0, owner.length - (ancestor === '@' ? owner.length : ancestor.length + 1)).replace(/\.$/, '');
      const target = dname.rdata.trim().replace(/\.$/, '');
      const cname: Rr = { owner: `${qname}.`, type: 'CNAME', ttl: dname.ttl, rdata: `${prefix}.${target}.` };
      return { rcode: 0, authoritative: true, answers: qtype === 'DNAME' ? [dname] : [dname, cname], authorities: [] };
    }
  }
  // the apex is among the owners asked for (every name's last ancestor), so its SOA came with them: one
  // statement less per answer
  const apexSoa = found.find((r) => r.owner === '@' && r.type === 'SOA');
  const soa = negativeSoa(apexSoa ?? (await soaOf(sql, zone)));
  const answerAt = (records: Rr[], asOwner: string): NameResult => {
    const rename = (r: Rr): Rr => (asOwner === r.owner ? r : { ...r, owner: asOwner });
    // a delegation point (not the apex): referral, except for the parent-side DS (RFC 4035 §3.1.4.1)
    const ns = records.filter((r) => r.type === 'NS');
    if (owner !== '@' && ns.length && qtype !== 'DS')
      return { rcode: 0, authoritative: false, answers: [], authorities: ns.map(rename), referral: true };
    const matching = pick(records, qtype);
    if (matching.length) return { rcode: 0, authoritative: true, answers: matching.map(rename), authorities: [] };
    const cname = records.find((r) => r.type === 'CNAME');
    if (cname) return { rcode: 0, authoritative: true, answers: [rename(cname)], authorities: [] };
    return { rcode: 0, authoritative: true, answers: [], authorities: [soa] };
  };
  const exact = at(owner);
  if (exact.length) return answerAt(exact, owner);
  // an empty non-terminal: NODATA (RFC 4592 §2.2.2)
  if (await hasDescendants(sql, zone, owner)) return { rcode: 0, authoritative: true, answers: [], authorities: [soa] };
  // the closest encloser, then its wildcard (RFC 4592 §3.3.1)
  for (const ancestor of ancestors) {
    if (ancestor !== '@' && !at(ancestor).length && !(await hasDescendants(sql, zone, ancestor))) continue;
    const wildcard = at(wildcardAt(ancestor));
    if (wildcard.length) return answerAt(wildcard, owner);
    break;
  }
  return { rcode: 3, authoritative: true, answers: [], authorities: [soa] };
}
