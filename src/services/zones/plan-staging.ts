import { CanonicalRecord, recordIdentity } from '../../dns/record';
import { isRestricted, type KeyPolicy, readsRecord } from '../../auth/policy';
import type { ErrorDetail } from '../../errors/catalogue';
import type { StoredRow } from '../../repositories/zone-writes';
import type { DisabledRecord } from '../../repositories/disabled-records';
import type { ParsedChange } from './change-parse';
import type { ZoneAsRead } from './change-plan';
import type { ZoneChangeOptions } from './zone-change-set';

/*
 * The planner's first step (change-plan.ts): a set's changes staged on the zone as read, by PowerDNS's
 * REPLACE/EXTEND/PRUNE/DISABLE/ENABLE semantics: what each change removes, adds, takes out of what is kept
 * disabled and keeps disabled, each remembered with the index of the change that asked it, so that every later
 * step's finding names its change. Then `reconcileDisabled`: a record is served or disabled, never both. Pure, as
 * the planner is: the stager reads only the zone it is given.
 */

/** an entry of what a set takes out of or brings into what is kept disabled, with the change that asks it */
export interface DisabledEntry {
  record: DisabledRecord;
  index: number;
}

/** The changes of a set staged on the zone as read, each with the change that asks it. */
export class SetStaging {
  /** problems found while staging (a record named that is not there, one changed twice, an SOA in a set) */
  readonly problems: ErrorDetail[];
  /** served records the set removes, by id, and the change that removes each */
  readonly removed = new Map<number, StoredRow>();
  readonly removedBy = new Map<number, number>();
  /** the records the set adds, and beside each (same position) the change that adds it: one object a record fewer than pairs */
  readonly additions: CanonicalRecord[] = [];
  readonly additionBy: number[] = [];
  /** disabled records the set takes away and those it keeps (docs/powerdns-api.md), by identity */
  readonly disabledGone = new Map<string, DisabledEntry>();
  readonly disabledCome = new Map<string, DisabledEntry>();
  /** the RRsets the set names, listed for a restricted key's policy alone (a key without rules makes no list) */
  readonly rrsets: { owner: string; type: string; index: number }[] = [];
  /** `soa: 'fields'`: the apex SOA the set gives its fields */
  soaFields?: CanonicalRecord;
  /** the additions by identity (the last of a repeated one), made by `reconcileDisabled` */
  readonly keptBack = new Map<string, CanonicalRecord>();

  private readonly restricted: boolean;
  private byIdMade?: Map<number, StoredRow>;
  private byIdentityMade?: Map<string, StoredRow>;
  private byRrsetMade?: Map<string, StoredRow[]>;

  constructor(
    private readonly zone: ZoneAsRead,
    private readonly keyPolicy: KeyPolicy | undefined,
    private readonly soa: ZoneChangeOptions['soa'],
    invalid: readonly ErrorDetail[] = [],
  ) {
    this.problems = [...invalid];
    this.restricted = isRestricted(keyPolicy);
  }

  /** stages every change of a set, in order */
  stageAll(parsed: readonly (ParsedChange | undefined)[]): this {
    parsed.forEach((p, index) => {
      if (p) this.stage(p, index);
    });
    return this;
  }

  private stage(p: ParsedChange, index: number): void {
    if (p.kind === 'ADD') {
      for (const record of p.records) this.add(record, index);
      for (const record of p.disabledRecords ?? []) this.keepDisabled(record, index);
    } else if (p.kind === 'REPLACE_RRSET' && p.type === 'SOA' && p.owner === '@' && p.records.length && this.soa === 'fields') {
      // the apex SOA's fields, its serial the zone's (`soa: 'fields'`); one SOA per zone (RFC 1035 §5.2)
      this.nameRrset(p.owner, p.type, index);
      if (p.records.length > 1)
        this.refuse(index, 'rdata', 'SOA_IN_CHANGE_SET', 'rdata: a zone has one SOA record (RFC 1035 §5.2); give one');
      else this.soaFields = p.records[0];
    } else if (p.kind === 'REPLACE_RRSET') {
      this.nameRrset(p.owner, p.type, index);
      for (const row of this.byRrset(p.owner, p.type) ?? []) this.remove(row, index);
      for (const record of p.records) this.add(record, index);
      if (p.disabledRecords) {
        for (const row of this.zone.disabled.byRrset.get(`${p.owner} ${p.type}`) ?? []) this.takeDisabled(row, index);
        for (const record of p.disabledRecords) this.keepDisabled(record, index);
      }
    } else if (p.kind === 'EXTEND_RRSET' || p.kind === 'PRUNE_RRSET') {
      this.stageExtendOrPrune(p, index);
    } else if (
      p.kind === 'ENABLE' ||
      ((p.kind === 'REMOVE' || p.kind === 'DISABLE') && p.match && !this.visibleToKey(this.byIdentity(recordIdentity(p.match))))
    ) {
      this.stageKeptDisabled(p, index);
    } else {
      this.stageOneRecord(p, index);
    }
  }

  /** EXTEND adds what the RRset lacks in either state and leaves a record it holds as it is (served or not); PRUNE removes */
  private stageExtendOrPrune(p: ParsedChange & { owner: string; type: string }, index: number): void {
    this.nameRrset(p.owner, p.type, index);
    for (const record of p.records) {
      const present = this.servedNow(record);
      if (p.kind === 'EXTEND_RRSET' && !present && !this.keptDisabled(record)) this.add(record, index);
      else if (p.kind === 'PRUNE_RRSET' && present) this.remove(present, index);
      if (p.kind === 'PRUNE_RRSET' && this.keptDisabled(record)) this.takeDisabled(this.keptDisabled(record)!, index);
    }
    for (const record of p.disabledRecords ?? [])
      if (!this.servedNow(record) && !this.keptDisabled(record) && !this.disabledCome.has(recordIdentity(record)))
        this.keepDisabled(record, index);
  }

  /** a record kept disabled: ENABLE serves it again with its TTL, REMOVE deletes it, DISABLE leaves it as it is */
  private stageKeptDisabled(p: ParsedChange & { match?: CanonicalRecord }, index: number): void {
    const match = p.match!;
    const kept = this.keptDisabled(match);
    if (kept && p.kind !== 'DISABLE') this.takeDisabled(kept, index);
    if (kept && p.kind === 'ENABLE') this.add({ ...match, ttl: kept.ttl }, index);
    if (!kept && !(p.kind === 'ENABLE' && this.visibleToKey(this.servedNow(match))))
      this.refuse(
        index,
        'rdata',
        'RECORD_NOT_FOUND',
        `rdata: zone ${this.zone.name} has no such ${p.kind === 'ENABLE' ? 'disabled ' : ''}record`,
      );
  }

  /** REPLACE, REMOVE or DISABLE of one served record, named by id or by its content */
  private stageOneRecord(p: ParsedChange & { id?: number; match?: CanonicalRecord }, index: number): void {
    const target = this.visibleToKey(p.id !== undefined ? this.byId(p.id) : this.byIdentity(recordIdentity(p.match!)));
    if (!target) {
      this.refuse(
        index,
        p.id !== undefined ? 'id' : 'rdata',
        'RECORD_NOT_FOUND',
        p.id !== undefined ? `id: record ${p.id} is not in zone ${this.zone.name}` : `rdata: zone ${this.zone.name} has no such record`,
      );
      return;
    }
    if (this.removed.has(target.id))
      this.refuse(index, 'id', 'RECORD_CHANGED_TWICE', `id: record ${target.id} is removed or replaced by an earlier change of the set`);
    this.remove(target, index);
    if (p.kind === 'REPLACE') for (const record of p.records) this.add(record, index);
    if (p.kind === 'DISABLE') this.keepDisabled(target, index);
  }

  /**
   * A record is served or disabled, never both: a served addition takes a kept one away (it is enabled), a
   * disabled one takes the served one away (it is disabled); one set asking both is refused (PowerDNS: a
   * duplicate record in the RRset). Makes `keptBack`, the additions by identity, each identity once: a removal
   * that adds a record back unchanged is no change at all (the planner's assembly).
   */
  reconcileDisabled(): this {
    for (let i = 0; i < this.additions.length; i++) {
      const record = this.additions[i];
      const index = this.additionBy[i];
      const key = recordIdentity(record);
      this.keptBack.set(key, record);
      if (this.disabledCome.has(key))
        this.refuse(
          index,
          'rdata',
          'DUPLICATE_RECORD',
          `rdata: ${record.owner} ${record.type} ${record.rdata} is both served and disabled`,
        );
      const kept = this.keptDisabledAt(key);
      if (kept) this.takeDisabled(kept, index);
    }
    for (const [key, { record, index }] of this.disabledCome) {
      const present = this.servedNow(record);
      if (present) this.remove(present, index);
      this.disabledGone.delete(key);
      // kept disabled already, with this TTL: no change (a REPLACE that names an RRset's disabled records as they
      // are, PowerDNS's every PATCH, would otherwise write them again and plan a change of nothing)
      const was = this.zone.disabled.byIdentity.get(key);
      if (was && was.ttl === record.ttl && !present) this.disabledCome.delete(key);
    }
    return this;
  }

  private add(record: CanonicalRecord, index: number): void {
    this.additions.push(record);
    this.additionBy.push(index);
  }

  private remove(row: StoredRow, index: number): void {
    if (row.type === 'SOA')
      this.refuse(
        index,
        'type',
        'SOA_IN_CHANGE_SET',
        this.soa === 'fields'
          ? 'type: a zone keeps its SOA (RFC 1035 §5.2): it is not deleted; a REPLACE with one SOA record changes its fields'
          : 'type: the SOA is not changed by a change set (its serial rises with every set; edit it with updateRecord)',
      );
    else {
      this.removed.set(row.id, row);
      this.removedBy.set(row.id, index);
    }
  }

  private refuse(index: number, field: string, code: string, message: string): void {
    this.problems.push({ field: `changes[${index}].${field}`, code, message: `changes[${index}].${message}` });
  }

  private nameRrset(owner: string, type: string, index: number): void {
    if (this.restricted) this.rrsets.push({ owner, type, index });
  }

  private takeDisabled(record: DisabledRecord, index: number): void {
    this.disabledGone.set(recordIdentity(record), { record, index });
  }

  private keepDisabled(record: DisabledRecord, index: number): void {
    this.disabledCome.set(recordIdentity(record), { record, index });
  }

  private keptDisabledAt(key: string): StoredRow | undefined {
    return this.disabledGone.has(key) ? undefined : this.visibleToKey(this.zone.disabled.byIdentity.get(key) as StoredRow | undefined);
  }

  private keptDisabled(record: { owner: string; type: string; rdata: string }): StoredRow | undefined {
    return this.keptDisabledAt(recordIdentity(record));
  }

  private servedNow(record: CanonicalRecord): StoredRow | undefined {
    const present = this.byIdentity(recordIdentity(record));
    return present && !this.removed.has(present.id) ? present : undefined;
  }

  /** a record a restricted key may not read is not in the zone for it (docs/least-privilege.md) */
  private visibleToKey(row: StoredRow | undefined): StoredRow | undefined {
    return row && readsRecord(this.keyPolicy, this.zone.name, row.owner, row.type) ? row : undefined;
  }

  // the records read by id, by identity and by RRset, each made when a change first asks (a REPLACE of one RRset,
  // the PowerDNS API's PATCH, asks only the last; an ADD none): a set of 1,000 REPLACEs looks up its RRsets, not
  // the whole read per change

  private byId(id: number): StoredRow | undefined {
    return (this.byIdMade ??= new Map(this.zone.records.map((r) => [r.id, r]))).get(id);
  }

  private byIdentity(key: string): StoredRow | undefined {
    return (this.byIdentityMade ??= new Map(this.zone.records.map((r) => [recordIdentity(r), r]))).get(key);
  }

  private byRrset(owner: string, type: string): StoredRow[] | undefined {
    if (!this.byRrsetMade) {
      this.byRrsetMade = new Map();
      for (const row of this.zone.records) {
        const key = `${row.owner} ${row.type}`;
        const rows = this.byRrsetMade.get(key);
        if (rows) rows.push(row);
        else this.byRrsetMade.set(key, [row]);
      }
    }
    // (no key made where the read found no record: a set of new names)
    return this.byRrsetMade.size ? this.byRrsetMade.get(`${owner} ${type}`) : undefined;
  }
}
