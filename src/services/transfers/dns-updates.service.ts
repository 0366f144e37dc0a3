import { ownersToCheck } from '../../dns/zone-checks';
import { isAtOrBelow, ownerOf, parseOwner } from '../../dns/name';
import { CanonicalRecord, parseRecord, recordIdentity } from '../../dns/record';
import type { AllowedTtls } from '../../dns/ttl';
import { soaSerial } from '../../dns/zone-rules';
import { serialGreaterThan } from '../../dns/serial';
import { DomainError, errorFromProblems } from '../../errors/catalogue';
import type { StoredRow } from '../../repositories/zone-writes';
import { allowedTtlsOf, type RequestContext } from '../context';
import type { Settings } from '../../config/settings';
import { normaliseZoneName } from '../../dns/zone-name';
import { decide, forbidden, isRestricted, KeyPolicy, seesZone } from '../../auth/policy';
import type { PlannedChanges, PlanView, ZoneChangesService } from '../zones/zone-changes.service';

/**
 * A prerequisite of an UPDATE (RFC 2136 §2.4). Names are absolute, in presentation form; types are mnemonics
 * (`TYPEnnn` for a type the model does not know); `rdata` in presentation form.
 */
export type UpdatePrerequisite =
  | { kind: 'NAME_IN_USE' | 'NAME_NOT_IN_USE'; name: string }
  | { kind: 'RRSET_EXISTS' | 'RRSET_DOES_NOT_EXIST'; name: string; type: string }
  /** one RR of a value-dependent "RRset exists" (§2.4.2): the RRs of one name and type together are the RRset */
  | { kind: 'RRSET_EQUALS'; name: string; type: string; rdata: string };

/** An update of an UPDATE (RFC 2136 §2.5), in the message's order. */
export type UpdateOperation =
  | { kind: 'ADD'; name: string; type: string; rdata: string; ttl: number }
  | { kind: 'DELETE_RRSET'; name: string; type: string }
  | { kind: 'DELETE_NAME'; name: string }
  | { kind: 'DELETE_RR'; name: string; type: string; rdata: string };

export interface DnsUpdateRequest {
  zone: string;
  prerequisites: UpdatePrerequisite[];
  updates: UpdateOperation[];
}

/** The RCODE names of RFC 2136 §2.2 a failed prerequisite answers with. */
export type PrerequisiteFailure = 'YXDOMAIN' | 'NXDOMAIN' | 'YXRRSET' | 'NXRRSET';

interface ZoneRr {
  id?: number;
  owner: string;
  type: string;
  rdata: string;
  ttl: number;
}

/**
 * DNS UPDATE (RFC 2136 §3) as a change set: the DNS edge translates the message into prerequisites and
 * updates in presentation form, and this decides what they mean on the zone as it is; the changes then go
 * through `ZoneChangesService` like the API's own sets (one rule book: the DNS model validates every record,
 * the zone rules hold, the serial rises once, one journal row naming the TSIG key). Prerequisites are checked
 * on the same read of the zone the write is conditional on, so they hold when the update is applied.
 *
 * Chosen where RFC 2136 leaves room or differs from the service's rules:
 * - §3.4.2.2 ignores a CNAME added beside other data (and other data beside a CNAME); here the zone rules
 *   refuse it (REFUSED), as for the API: a silently dropped record is a silent failure for the client.
 * - an added RR whose TTL differs from its RRset's gives the whole RRset that TTL (RFC 2181 §5.2: one TTL per
 *   RRset), as BIND does.
 * - an added SOA replaces the zone's only if its serial is greater (RFC 1982), and becomes the zone's serial.
 * - an added RR's TTL is held to ALLOWED_TTLS_BEYOND_REST (allowedTtlsOf), which takes any TTL unless the
 *   operator sets a policy: ACME clients send their own fixed TTL (certbot and lego 120, cert-manager 60) and
 *   get it; under a policy that does not allow it, the update is REFUSED naming the setting, never applied with
 *   another TTL (README, "DNS UPDATE").
 */
export class DnsUpdatesService {
  constructor(
    private readonly zoneChanges: ZoneChangesService,
    private readonly settings: Pick<Settings, 'allowedTtls' | 'allowedTtlsBeyondRest'>,
  ) {}

  async apply(ctx: RequestContext, request: DnsUpdateRequest): Promise<{ changed: boolean; serial: number }> {
    const zone = normaliseZoneName(request.zone);
    // §3.2 and §3.4.1.3: every name must be in the zone (NOTZONE)
    for (const item of [...request.prerequisites, ...request.updates]) {
      if (!isAtOrBelow(item.name, zone)) {
        throw new DomainError('NAME_NOT_IN_ZONE', `${item.name} is not in zone ${zone}`, [
          { field: 'name', code: 'NOTZONE', message: `name: ${item.name} is not in zone ${zone}` },
        ]);
      }
    }
    checkPolicy(ctx.principal.policy, zone, request);
    // the names the update speaks of are all the plan looks at (with the apex, which is always read)
    // (each update's owner read once here, for the plan too, however often it is decided)
    const updateOwners = request.updates.map((update) => storedOwner(zone, update.name));
    // and the names the zone checks need beside what it adds (targets, the delegations above: ownersToCheck)
    const added = request.updates.flatMap((update, index) =>
      update.kind === 'ADD' ? [{ owner: updateOwners[index], type: update.type, rdata: update.rdata }] : [],
    );
    const owners = [
      ...request.prerequisites.map((prerequisite) => storedOwner(zone, prerequisite.name)),
      ...updateOwners,
      ...(added.length ? ownersToCheck(zone, added) : []),
    ];
    const allowedTtls = allowedTtlsOf(ctx, this.settings);
    const result = await this.zoneChanges.applyPlanned(ctx, {
      zone,
      owners,
      plan: (view) => this.plan(zone, view, request, updateOwners, allowedTtls),
    });
    return { changed: result.changed, serial: result.serial };
  }

  /** `owners`: the stored owner of each update, in order */
  private plan(
    zone: string,
    view: PlanView,
    request: DnsUpdateRequest,
    owners: readonly string[],
    allowedTtls: AllowedTtls,
  ): PlannedChanges {
    checkPrerequisites(zone, view.records, request.prerequisites);
    const soaRow = view.records.find((r) => r.type === 'SOA' && r.owner === '@');
    let soa: ZoneRr | undefined;
    // the zone as the updates leave it (SOA aside)
    const working = new WorkingZone();
    for (const row of view.records) if (row.type !== 'SOA') working.put({ ...row });

    for (let index = 0; index < request.updates.length; index++) {
      const update = request.updates[index];
      const owner = owners[index];
      switch (update.kind) {
        case 'ADD': {
          const parsed = parseRecord(zone, { owner: update.name, type: update.type, rdata: update.rdata, ttl: update.ttl }, allowedTtls);
          if (!parsed.ok) throw errorFromProblems(parsed.problems);
          const record = parsed.record;
          if (record.type === 'SOA') {
            // §3.4.2.2: the SOA is replaced only by one whose serial is greater, otherwise the RR is ignored
            const current = soa ?? soaRow;
            if (record.owner === '@' && current && serialGreaterThan(soaSerial(record.rdata), soaSerial(current.rdata))) soa = record;
            continue;
          }
          // §3.4.2.2: a CNAME replaces the CNAME of its owner
          if (record.type === 'CNAME') working.removeRrset(record.owner, 'CNAME');
          working.add(record);
          break;
        }
        case 'DELETE_RRSET':
          // §3.4.2.3: the apex SOA and NS RRsets are never deleted this way
          if (owner === '@' && (update.type === 'SOA' || update.type === 'NS')) continue;
          working.removeRrset(owner, update.type);
          break;
        case 'DELETE_NAME':
          // §3.4.2.3: deleting every RRset of the apex leaves its SOA and NS
          for (const r of [...working.values()]) if (r.owner === owner && !(owner === '@' && r.type === 'NS')) working.remove(r);
          break;
        case 'DELETE_RR': {
          // §3.4.2.4: the SOA is never deleted, nor the apex's last NS
          if (update.type === 'SOA') continue;
          const match = canonicalRdata(zone, update.name, update.type, update.rdata);
          const target = match === undefined ? undefined : working.get({ owner, type: match.type, rdata: match.rdata });
          if (!target) continue;
          if (owner === '@' && target.type === 'NS' && working.rrsetSize('@', 'NS') === 1) continue;
          working.remove(target);
          break;
        }
      }
    }

    // the difference to the zone as read: a record whose TTL changed goes and comes back
    const additions: CanonicalRecord[] = [];
    const kept = new Set<number>();
    const rowsById = new Map(view.records.map((r) => [r.id, r]));
    for (const record of working.values()) {
      const row = record.id === undefined ? undefined : rowsById.get(record.id);
      if (row && row.ttl === record.ttl) kept.add(row.id);
      else additions.push({ owner: record.owner, type: record.type, rdata: record.rdata, ttl: record.ttl });
    }
    // the removals last read first, as a change set listing them would be decided
    const removedIds: number[] = [];
    for (let i = view.records.length - 1; i >= 0; i--) {
      const row = view.records[i];
      if (row.type !== 'SOA' && !kept.has(row.id)) removedIds.push(row.id);
    }
    return { removedIds, additions, soa: soa && { owner: '@', type: 'SOA', rdata: soa.rdata, ttl: soa.ttl } };
  }
}

/** the key of an RRset: its owner and type */
const rrsetKey = (owner: string, type: string): string => `${owner}\u0000${type}`;

/**
 * The zone as an UPDATE's operations leave it (SOA aside): its RRs by identity (owner, type, RDATA) in the order
 * they were put, and by RRset, so that an operation finds its RRset without walking the zone: an UPDATE adding
 * 1,000 RRs had walked every RR of the zone for each of them.
 */
class WorkingZone {
  private readonly rrs = new Map<string, ZoneRr>();
  private readonly rrsets = new Map<string, Set<ZoneRr>>();

  get(rr: { owner: string; type: string; rdata: string }): ZoneRr | undefined {
    return this.rrs.get(recordIdentity(rr));
  }

  /** puts `rr`, which no RR of the zone equals */
  put(rr: ZoneRr): void {
    this.rrs.set(recordIdentity(rr), rr);
    const key = rrsetKey(rr.owner, rr.type);
    const rrset = this.rrsets.get(key);
    if (rrset) rrset.add(rr);
    else this.rrsets.set(key, new Set([rr]));
  }

  /**
   * §3.4.2.2: an RR equal to one there replaces it (which keeps its place, and its id: only its TTL may differ),
   * or is added; its RRset takes its TTL (RFC 2181 §5.2)
   */
  add(rr: ZoneRr): void {
    const equal = this.get(rr);
    if (equal) equal.ttl = rr.ttl;
    else this.put(rr);
    for (const sibling of this.rrsets.get(rrsetKey(rr.owner, rr.type))!) sibling.ttl = rr.ttl;
  }

  remove(rr: ZoneRr): void {
    this.rrs.delete(recordIdentity(rr));
    this.rrsets.get(rrsetKey(rr.owner, rr.type))?.delete(rr);
  }

  removeRrset(owner: string, type: string): void {
    const rrset = this.rrsets.get(rrsetKey(owner, type));
    if (rrset) for (const rr of [...rrset]) this.remove(rr);
  }

  rrsetSize(owner: string, type: string): number {
    return this.rrsets.get(rrsetKey(owner, type))?.size ?? 0;
  }

  values(): IterableIterator<ZoneRr> {
    return this.rrs.values();
  }
}

/**
 * A restricted key's update (docs/least-privilege.md): a zone it has no rule for is not there for it (NOTAUTH);
 * every prerequisite needs read of what it asks about (a name-wide one: every type at the name), every update
 * write of what it changes (deleting a whole name: every type at it). The first refusal decides, before the
 * zone is read: the client is REFUSED with the missing rule as its Extended DNS Error text.
 */
function checkPolicy(policy: KeyPolicy | undefined, zone: string, request: DnsUpdateRequest): void {
  if (!isRestricted(policy)) return;
  if (!seesZone(policy, zone)) throw DomainError.notFound('ZONE_NOT_FOUND', 'zone');
  const asks = [
    ...request.prerequisites.map((p, i) => ({
      field: `prerequisites[${i}]`,
      name: p.name,
      type: 'type' in p ? p.type : undefined,
      access: 'read' as const,
    })),
    ...request.updates.map((u, i) => ({
      field: `updates[${i}]`,
      name: u.name,
      type: 'type' in u ? u.type : undefined,
      access: 'write' as const,
    })),
  ];
  for (const ask of asks) {
    const decision = decide(policy, { zone, owner: storedOwner(zone, ask.name), type: ask.type, access: ask.access });
    if (!decision.allowed) throw forbidden(decision.missing, ask.field);
  }
}

/** the stored (relative) owner of an absolute name in the zone; names the model would refuse hold nothing */
function storedOwner(zone: string, name: string): string {
  const parsed = parseOwner(name, zone, 'name');
  if (parsed.ok) return parsed.name;
  return ownerOf(name, zone)!;
}

/** a record's type and RDATA in the stored canonical form, or undefined when the model cannot read it (so no such record is stored) */
function canonicalRdata(zone: string, name: string, type: string, rdata: string): { type: string; rdata: string } | undefined {
  const parsed = parseRecord(zone, { owner: name, type, rdata, ttl: 0 }, []);
  return parsed.ok ? { type: parsed.record.type, rdata: parsed.record.rdata } : undefined;
}

function prerequisiteFailed(rcode: PrerequisiteFailure, message: string): DomainError {
  return new DomainError('UPDATE_PREREQUISITE_FAILED', message, [{ field: 'prerequisites', code: rcode, message }]);
}

/** RFC 2136 §3.2: in order, the first that fails decides; value-dependent RRsets are compared whole at the end (§3.2.5) */
function checkPrerequisites(zone: string, records: readonly StoredRow[], prerequisites: UpdatePrerequisite[]): void {
  const expected = new Map<string, { owner: string; type: string; rdatas: Set<string>; unreadable: boolean }>();
  for (const prerequisite of prerequisites) {
    const owner = storedOwner(zone, prerequisite.name);
    const atName = records.filter((r) => r.owner === owner);
    switch (prerequisite.kind) {
      case 'NAME_IN_USE':
        if (!atName.length) throw prerequisiteFailed('NXDOMAIN', `${prerequisite.name} has no records`);
        break;
      case 'NAME_NOT_IN_USE':
        if (atName.length) throw prerequisiteFailed('YXDOMAIN', `${prerequisite.name} has records`);
        break;
      case 'RRSET_EXISTS':
        if (!atName.some((r) => r.type === prerequisite.type))
          throw prerequisiteFailed('NXRRSET', `${prerequisite.name} has no ${prerequisite.type} records`);
        break;
      case 'RRSET_DOES_NOT_EXIST':
        if (atName.some((r) => r.type === prerequisite.type))
          throw prerequisiteFailed('YXRRSET', `${prerequisite.name} has ${prerequisite.type} records`);
        break;
      case 'RRSET_EQUALS': {
        const match = canonicalRdata(zone, prerequisite.name, prerequisite.type, prerequisite.rdata);
        const key = rrsetKey(owner, match?.type ?? prerequisite.type);
        const entry = expected.get(key) ?? { owner, type: match?.type ?? prerequisite.type, rdatas: new Set<string>(), unreadable: false };
        if (match) entry.rdatas.add(match.rdata);
        else entry.unreadable = true;
        expected.set(key, entry);
        break;
      }
    }
  }
  for (const entry of expected.values()) {
    const present = new Set(records.filter((r) => r.owner === entry.owner && r.type === entry.type).map((r) => r.rdata));
    const same = !entry.unreadable && present.size === entry.rdatas.size && [...present].every((rdata) => entry.rdatas.has(rdata));
    if (!same) throw prerequisiteFailed('NXRRSET', `the ${entry.type} RRset of ${entry.owner} is not the one given`);
  }
}
