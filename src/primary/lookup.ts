/**
 * Answering an ordinary query for zone data (RFC 1034 §4.3.2, simplified to one zone: no recursion, no
 * out-of-zone chasing): referrals below delegations, DNAME (RFC 6672) with a synthesised CNAME, CNAME,
 * exact matches, wildcards (RFC 4592) from the closest encloser, NODATA and NXDOMAIN with the SOA in the
 * authority section for negative caching (RFC 2308 §3).
 */
import type { PoolClient } from 'pg';
import { hasDescendants, recordsAt, Rr, soaOf, ZoneRef } from '../repositories/dns-zone-data';

export interface LookupResult {
  rcode: 0 | 3;
  authoritative: boolean;
  answers: Rr[];
  authorities: Rr[];
  /** owners in answers are relative to the zone, or absolute (ending with '.') for synthesised names */
}

/** 'a.b' for 'a.b.example.com' in 'example.com'; '@' for the apex */
export function relativeOwner(qname: string, zone: string): string {
  return qname === zone ? '@' : qname.slice(0, -(zone.length + 1));
}

function ancestorsOf(owner: string): string[] {
  if (owner === '@') return [];
  const labels = owner.split('.');
  const result: string[] = [];
  for (let i = 1; i < labels.length; i++) result.push(labels.slice(i).join('.'));
  result.push('@');
  return result;
}

const wildcardAt = (owner: string) => (owner === '@' ? '*' : `*.${owner}`);

function negativeSoa(soa: Rr): Rr {
  const minimum = Number(soa.rdata.trim().split(/\s+/)[6]);
  return { ...soa, ttl: Number.isFinite(minimum) ? Math.min(soa.ttl, minimum) : soa.ttl };
}

function pick(records: Rr[], qtype: string): Rr[] {
  return qtype === 'ANY' ? records : records.filter((r) => r.type === qtype);
}

export async function lookup(client: PoolClient, zone: ZoneRef, qname: string, qtype: string): Promise<LookupResult> {
  const owner = relativeOwner(qname, zone.name);
  const ancestors = ancestorsOf(owner);
  const owners = [owner, ...ancestors, ...[owner, ...ancestors].map(wildcardAt)];
  const found = await recordsAt(client, zone, [...new Set(owners)]);
  const at = (o: string) => found.filter((r) => r.owner === o);

  // delegations and DNAMEs above the name, from the apex down (the highest one wins)
  for (const ancestor of [...ancestors].reverse()) {
    if (ancestor === '@') continue;
    const ns = at(ancestor).filter((r) => r.type === 'NS');
    if (ns.length) return { rcode: 0, authoritative: false, answers: [], authorities: ns };
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
  const soa = negativeSoa(apexSoa ?? (await soaOf(client, zone)));
  const answerAt = (records: Rr[], asOwner: string): LookupResult => {
    const rename = (r: Rr): Rr => (asOwner === r.owner ? r : { ...r, owner: asOwner });
    // a delegation point (not the apex): referral, except for the parent-side DS (RFC 4035 §3.1.4.1)
    const ns = records.filter((r) => r.type === 'NS');
    if (owner !== '@' && ns.length && qtype !== 'DS') return { rcode: 0, authoritative: false, answers: [], authorities: ns.map(rename) };
    const matching = pick(records, qtype);
    if (matching.length) return { rcode: 0, authoritative: true, answers: matching.map(rename), authorities: [] };
    const cname = records.find((r) => r.type === 'CNAME');
    if (cname) return { rcode: 0, authoritative: true, answers: [rename(cname)], authorities: [] };
    return { rcode: 0, authoritative: true, answers: [], authorities: [soa] };
  };
  const exact = at(owner);
  if (exact.length) return answerAt(exact, owner);
  // an empty non-terminal: NODATA (RFC 4592 §2.2.2)
  if (await hasDescendants(client, zone, owner)) return { rcode: 0, authoritative: true, answers: [], authorities: [soa] };
  // the closest encloser, then its wildcard (RFC 4592 §3.3.1)
  for (const ancestor of ancestors) {
    if (ancestor !== '@' && !at(ancestor).length && !(await hasDescendants(client, zone, ancestor))) continue;
    const wildcard = at(wildcardAt(ancestor));
    if (wildcard.length) return answerAt(wildcard, owner);
    break;
  }
  return { rcode: 3, authoritative: true, answers: [], authorities: [soa] };
}
