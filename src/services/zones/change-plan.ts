import { CanonicalRecord, recordIdentity } from '../../dns/record';
import { checkZoneIndexed, soaSerial, withSerial } from '../../dns/zone-rules';
import { apexNsNotAtParent, checkZoneRecords } from '../../dns/zone-checks';
import { serialGreaterThan } from '../../dns/serial';
import { DomainError, ErrorDetail, errorFromProblems } from '../../errors/catalogue';
import { decide, isRestricted, type KeyPolicy, readsRecord } from '../../auth/policy';
import type { StoredRow } from '../../repositories/zone-writes';
import type { DisabledRecord } from '../../repositories/disabled-records';
import { guardedProblems } from '../write-engine/rrset-guards';
import type { ParsedChange } from './change-parse';
import type { ZoneChangeOptions } from './zone-change-set';
import type { ChangePlan, SoaEdit } from '../write-engine/plan';
import { findingDetail, refusesChange } from './zone-warnings';

/*
 * A change set planned: the functional core of the write path, as octoDNS's Plan and DNSControl's diff. The
 * service reads the zone, hands the planner the zone as read and the changes as parsed, and hands the plan it
 * gets to the write engine (write-engine/apply-plan.ts), which stages it, writes what is kept disabled, holds the
 * quotas and commits. Planning does not wait and holds no connection: a plan is a value, the same one for a dry
 * run and for a write, and a zone that moved before the write is planned again.
 */

/** The zone as the service read it: the records at the owners a set names and the apex, and those kept disabled there. */
export interface ZoneAsRead {
  name: string;
  serial: number;
  soa: { rdata: string; ttl: number };
  records: readonly StoredRow[];
  disabled: ZoneDisabledRecords;
}

/** the disabled records read at a set's owners, by identity and by RRset (`owner type`) */
export interface ZoneDisabledRecords {
  byIdentity: ReadonlyMap<string, DisabledRecord>;
  byRrset: ReadonlyMap<string, readonly DisabledRecord[]>;
}

/** what a set meets kept disabled when it meets none (the usual set): one pair of empty maps, only read */
export const NO_DISABLED: ZoneDisabledRecords = { byIdentity: new Map(), byRrset: new Map() };

/** disabled records grouped as a plan reads them */
export function disabledRecordsRead(rows: readonly DisabledRecord[]): ZoneDisabledRecords {
  if (!rows.length) return NO_DISABLED;
  const byIdentity = new Map(rows.map((r) => [recordIdentity(r), r]));
  const byRrset = new Map<string, DisabledRecord[]>();
  for (const row of rows) {
    const key = `${row.owner} ${row.type}`;
    const list = byRrset.get(key);
    if (list) list.push(row);
    else byRrset.set(key, [row]);
  }
  return { byIdentity, byRrset };
}

/** What a plan is planned under: the caller's key, how the SOA may be given, the problems its reading found. */
export interface PlanPolicy {
  /** the key's policy (auth/policy.ts): a record it may not read is not in the zone for it */
  keyPolicy?: KeyPolicy;
  /** ZoneChangeOptions.soa: a REPLACE_RRSET of the apex SOA gives the SOA its fields */
  soa?: ZoneChangeOptions['soa'];
  /** problems found while reading the changes, reported with the plan's own (every problem at once) */
  invalid?: readonly ErrorDetail[];
  /** a whole SOA the caller decided (DNS UPDATE: a serial that rises, RFC 2136 §3.4.2.2) */
  soaRecord?: CanonicalRecord;
  /** what the zone holds a change to besides its records (repositories/protected-rrsets.ts, guardsOfZone) */
  guards?: PlanGuards;
}

/** a zone's guards: its locked RRsets, its steered ones (each `owner type`), and whether warnings refuse too */
export interface PlanGuards {
  strictChecks?: boolean;
  protectedRrsets?: ReadonlySet<string>;
  steeredRrsets?: ReadonlySet<string>;
  /**
   * the NS set the zone's parent lists, as the health checker last read it (repositories/health.ts
   * `parentNsOf`; undefined: not known, or not read because the set does not touch the apex NS): a plan that
   * changes the apex NS set to another than this one gets APEX_NS_NOT_AT_PARENT
   */
  parentNs?: readonly string[];
}

/**
 * Whether a set may change the apex NS (a change naming the apex NS RRset, or a record of it by id or RDATA): only
 * then does the service read the parent's NS set as the health checker last saw it (PlanGuards.parentNs)
 */
export function mayChangeApexNs(parsed: readonly (ParsedChange | undefined)[], records: readonly StoredRow[]): boolean {
  const apexNs = (r: { owner: string; type: string }) => r.owner === '@' && r.type === 'NS';
  return parsed.some(
    (p) =>
      p !== undefined &&
      (('owner' in p && apexNs(p)) ||
        p.records.some(apexNs) ||
        (p.disabledRecords ?? []).some(apexNs) ||
        ('match' in p && p.match !== undefined && apexNs(p.match)) ||
        ('id' in p && p.id !== undefined && records.some((r) => r.id === p.id && apexNs(r)))),
  );
}

export interface PlannedRrset {
  owner: string;
  type: string;
  before: StoredRow[];
  after: CanonicalRecord[];
}

export type PlanOutcome = { plan: ChangePlan } | { problems: ErrorDetail[]; refusal: DomainError };

/** the changes of a set the key's policy refuses, each named by its index, the first in the message */
export function refusedByPolicy(refused: ErrorDetail[]): DomainError {
  const message = refused.length === 1 ? refused[0].message : `${refused[0].message} (and ${refused.length - 1} more refused)`;
  return new DomainError('FORBIDDEN_BY_POLICY', message, refused);
}

const refusal = (problems: ErrorDetail[], error: DomainError): PlanOutcome => ({ problems, refusal: error });

/**
 * Plans a change set on `zone` as read: the rules over the zone as it will be after the whole set, the key's
 * policy over every change, PowerDNS's REPLACE/EXTEND/PRUNE/DISABLE/ENABLE semantics. Pure: the same zone and
 * changes give the same plan. Every problem of the set comes back at once, each naming its change.
 */
export function planChangeSet(zone: ZoneAsRead, parsed: readonly (ParsedChange | undefined)[], policy: PlanPolicy = {}): PlanOutcome {
  const name = zone.name;
  const current = zone.records;
  const disabled = zone.disabled;
  const problems: ErrorDetail[] = [...(policy.invalid ?? [])];
  // the records read by id, by identity and by RRset, each made when a change first asks (a REPLACE of one
  // RRset, the PowerDNS API's PATCH, asks only the last; an ADD none)
  let byIdMade: Map<number, StoredRow> | undefined;
  const byId = (id: number) => (byIdMade ??= new Map(current.map((r) => [r.id, r]))).get(id);
  let byIdentityMade: Map<string, StoredRow> | undefined;
  const byIdentity = (key: string) => (byIdentityMade ??= new Map(current.map((r) => [recordIdentity(r), r]))).get(key);
  // the records of each RRset read: a set of 1,000 REPLACEs looks up its RRsets, not the whole read per change
  let byRrsetMade: Map<string, StoredRow[]> | undefined;
  const byRrset = (owner: string, type: string) => {
    if (!byRrsetMade) {
      byRrsetMade = new Map();
      for (const row of current) {
        const key = `${row.owner} ${row.type}`;
        const rows = byRrsetMade.get(key);
        if (rows) rows.push(row);
        else byRrsetMade.set(key, [row]);
      }
    }
    // (no key made where the read found no record: a set of new names)
    return byRrsetMade.size ? byRrsetMade.get(`${owner} ${type}`) : undefined;
  };
  const removed = new Map<number, StoredRow>();
  const removedBy = new Map<number, number>();
  const keyPolicy = policy.keyPolicy;
  // a record a restricted key may not read is not in the zone for it (docs/least-privilege.md)
  const visibleToKey = (row: StoredRow | undefined) => (row && readsRecord(keyPolicy, name, row.owner, row.type) ? row : undefined);
  // the RRsets the set names, for a restricted key's policy alone (a key without rules makes no list of them)
  const restricted = isRestricted(keyPolicy);
  const rrsets: { owner: string; type: string; index: number }[] = [];
  let soaFields: CanonicalRecord | undefined;
  // the records the set adds, and beside each (same position) the index of the change that adds it: one
  // object a record fewer than a pair of them, for a set of 1,000
  const additions: CanonicalRecord[] = [];
  const additionBy: number[] = [];
  const add = (record: CanonicalRecord, index: number) => {
    additions.push(record);
    additionBy.push(index);
  };
  const refuse = (index: number, field: string, code: string, message: string) =>
    problems.push({ field: `changes[${index}].${field}`, code, message: `changes[${index}].${message}` });
  const remove = (row: StoredRow, index: number) => {
    if (row.type === 'SOA')
      refuse(
        index,
        'type',
        'SOA_IN_CHANGE_SET',
        policy.soa === 'fields'
          ? 'type: a zone keeps its SOA (RFC 1035 §5.2): it is not deleted; a REPLACE with one SOA record changes its fields'
          : 'type: the SOA is not changed by a change set (its serial rises with every set; edit it with updateRecord)',
      );
    else {
      removed.set(row.id, row);
      removedBy.set(row.id, index);
    }
  };

  // disabled records: those the set takes away and those it keeps (docs/powerdns-api.md), each with its change
  const disabledGone = new Map<string, { record: DisabledRecord; index: number }>();
  const disabledCome = new Map<string, { record: DisabledRecord; index: number }>();
  const keptDisabledAt = (key: string) =>
    disabledGone.has(key) ? undefined : visibleToKey(disabled.byIdentity.get(key) as StoredRow | undefined);
  const keptDisabled = (record: { owner: string; type: string; rdata: string }) => keptDisabledAt(recordIdentity(record));
  const takeDisabled = (record: DisabledRecord, index: number) => disabledGone.set(recordIdentity(record), { record, index });
  const keepDisabled = (record: DisabledRecord, index: number) => disabledCome.set(recordIdentity(record), { record, index });
  const servedNow = (record: CanonicalRecord) => {
    const present = byIdentity(recordIdentity(record));
    return present && !removed.has(present.id) ? present : undefined;
  };

  parsed.forEach((p, index) => {
    if (!p) return;
    if (p.kind === 'ADD') {
      for (const record of p.records) add(record, index);
      for (const record of p.disabledRecords ?? []) keepDisabled(record, index);
    } else if (p.kind === 'REPLACE_RRSET' && p.type === 'SOA' && p.owner === '@' && p.records.length && policy.soa === 'fields') {
      // the apex SOA's fields, its serial the zone's (`soa: 'fields'`); one SOA per zone (RFC 1035 §5.2)
      if (restricted) rrsets.push({ owner: p.owner, type: p.type, index });
      if (p.records.length > 1) refuse(index, 'rdata', 'SOA_IN_CHANGE_SET', 'rdata: a zone has one SOA record (RFC 1035 §5.2); give one');
      else soaFields = p.records[0];
    } else if (p.kind === 'REPLACE_RRSET') {
      if (restricted) rrsets.push({ owner: p.owner, type: p.type, index });
      const rows = byRrset(p.owner, p.type);
      if (rows) for (const row of rows) remove(row, index);
      for (const record of p.records) add(record, index);
      if (p.disabledRecords) {
        for (const row of disabled.byRrset.get(`${p.owner} ${p.type}`) ?? []) takeDisabled(row, index);
        for (const record of p.disabledRecords) keepDisabled(record, index);
      }
    } else if (p.kind === 'EXTEND_RRSET' || p.kind === 'PRUNE_RRSET') {
      if (restricted) rrsets.push({ owner: p.owner, type: p.type, index });
      // EXTEND adds what the RRset lacks in either state, and leaves a record it holds as it is (served or not)
      for (const record of p.records) {
        const present = servedNow(record);
        if (p.kind === 'EXTEND_RRSET' && !present && !keptDisabled(record)) add(record, index);
        else if (p.kind === 'PRUNE_RRSET' && present) remove(present, index);
        if (p.kind === 'PRUNE_RRSET' && keptDisabled(record)) takeDisabled(keptDisabled(record)!, index);
      }
      for (const record of p.disabledRecords ?? [])
        if (!servedNow(record) && !keptDisabled(record) && !disabledCome.has(recordIdentity(record))) keepDisabled(record, index);
    } else if (
      p.kind === 'ENABLE' ||
      ((p.kind === 'REMOVE' || p.kind === 'DISABLE') && p.match && !visibleToKey(byIdentity(recordIdentity(p.match))))
    ) {
      // a record kept disabled: ENABLE serves it again with its TTL, REMOVE deletes it, DISABLE leaves it as it is
      const match = p.match!;
      const kept = keptDisabled(match);
      if (kept && p.kind !== 'DISABLE') takeDisabled(kept, index);
      if (kept && p.kind === 'ENABLE') add({ ...match, ttl: kept.ttl }, index);
      if (!kept && !(p.kind === 'ENABLE' && visibleToKey(servedNow(match))))
        refuse(index, 'rdata', 'RECORD_NOT_FOUND', `rdata: zone ${name} has no such ${p.kind === 'ENABLE' ? 'disabled ' : ''}record`);
    } else if (p.kind === 'REPLACE' || p.kind === 'REMOVE' || p.kind === 'DISABLE') {
      const target = visibleToKey(p.id !== undefined ? byId(p.id) : byIdentity(recordIdentity(p.match!)));
      if (!target) {
        refuse(
          index,
          p.id !== undefined ? 'id' : 'rdata',
          'RECORD_NOT_FOUND',
          p.id !== undefined ? `id: record ${p.id} is not in zone ${name}` : `rdata: zone ${name} has no such record`,
        );
        return;
      }
      if (removed.has(target.id))
        refuse(index, 'id', 'RECORD_CHANGED_TWICE', `id: record ${target.id} is removed or replaced by an earlier change of the set`);
      remove(target, index);
      if (p.kind === 'REPLACE') for (const record of p.records) add(record, index);
      if (p.kind === 'DISABLE') keepDisabled(target, index);
    }
  });
  // a record is served or disabled, never both: a served addition takes a kept one away (it is enabled), a
  // disabled one takes the served one away (it is disabled); one set asking both is refused (PowerDNS: a
  // duplicate record in the RRset)
  // the additions by identity (the last of a repeated one), each identity made once: a removal that adds a
  // record back unchanged is no change at all (below)
  const keptBack = new Map<string, CanonicalRecord>();
  for (let i = 0; i < additions.length; i++) {
    const record = additions[i];
    const index = additionBy[i];
    const key = recordIdentity(record);
    keptBack.set(key, record);
    if (disabledCome.has(key))
      refuse(index, 'rdata', 'DUPLICATE_RECORD', `rdata: ${record.owner} ${record.type} ${record.rdata} is both served and disabled`);
    const kept = keptDisabledAt(key);
    if (kept) takeDisabled(kept, index);
  }
  for (const [key, { record, index }] of disabledCome) {
    const present = servedNow(record);
    if (present) remove(present, index);
    disabledGone.delete(key);
    // kept disabled already, with this TTL: no change (a REPLACE that names an RRset's disabled records as they
    // are, PowerDNS's every PATCH, would otherwise write them again and plan a change of nothing)
    const was = disabled.byIdentity.get(key);
    if (was && was.ttl === record.ttl && !present) disabledCome.delete(key);
  }
  if (problems.some((p) => p.code === 'RECORD_NOT_FOUND') && problems.every((p) => p.code === 'RECORD_NOT_FOUND')) {
    return refusal(
      problems,
      new DomainError(
        'RECORD_NOT_FOUND',
        problems.length === 1 ? problems[0].message : `${problems.length} records of the set are not in zone ${name}`,
        problems,
      ),
    );
  }
  // changes that name records the zone lacks stop here (the rules would speak of a zone that cannot be)
  if (problems.some((p) => p.code === 'RECORD_NOT_FOUND' || p.code === 'RECORD_CHANGED_TWICE' || p.code === 'SOA_IN_CHANGE_SET'))
    return refusal(problems, errorFromProblems(problems));
  // the key's policy over every change: what it removes and what it adds, each named by its index
  if (restricted) {
    const refused: ErrorDetail[] = [];
    const check = (owner: string, type: string, index: number) => {
      const decision = decide(keyPolicy, { zone: name, owner, type, access: 'write' });
      const field = `changes[${index}]`;
      if (!decision.allowed && !refused.some((r) => r.field === field))
        refused.push({ field, code: 'FORBIDDEN_BY_POLICY', message: `${field}: ${decision.missing}` });
    };
    for (const set of rrsets) check(set.owner, set.type, set.index);
    for (const row of removed.values()) check(row.owner, row.type, removedBy.get(row.id)!);
    additions.forEach((record, i) => check(record.owner, record.type, additionBy[i]));
    for (const { record, index } of [...disabledGone.values(), ...disabledCome.values()]) check(record.owner, record.type, index);
    if (refused.length) {
      const sorted = refused.sort((a, b) => a.field.localeCompare(b.field, 'en', { numeric: true }));
      return refusal(sorted, refusedByPolicy(sorted));
    }
  }

  // the zone as it will be: what stays, then what comes, so that a rule broken by the set names its change
  const kept = current.filter((r) => !removed.has(r.id));
  const desired: CanonicalRecord[] = [...kept];
  for (const record of additions) desired.push(record);
  // a zone-wide rule a removal broke (the apex left without NS, RFC 1034 §4.2.1) names the first change that
  // removed an apex NS, as one an addition broke names that addition
  const apexNsRemovedBy = Math.min(
    ...[...removed.values()].filter((r) => r.owner === '@' && r.type === 'NS').map((r) => removedBy.get(r.id)!),
  );
  for (const found of checkZoneIndexed(name, desired)) {
    const addedBy = found.index !== undefined && found.index >= kept.length ? additionBy[found.index - kept.length] : undefined;
    const by = addedBy ?? (found.problem.code === 'APEX_NS_MISSING' && Number.isFinite(apexNsRemovedBy) ? apexNsRemovedBy : undefined);
    problems.push(
      by !== undefined
        ? { ...found.problem, field: `changes[${by}].${found.problem.field}`, message: `changes[${by}].${found.problem.message}` }
        : found.problem,
    );
  }
  if (problems.length) return refusal(problems, errorFromProblems(problems));

  // a record removed and added back unchanged is no change at all
  const removals: ChangePlan['removals'] = [];
  for (const row of removed.values()) {
    const key = recordIdentity(row);
    const back = keptBack.get(key);
    if (back && back.ttl === row.ttl) {
      keptBack.delete(key);
      continue;
    }
    removals.push({ row, toggled: disabledCome.has(key) });
  }
  const insertions: ChangePlan['insertions'] = [];
  for (const [key, record] of keptBack) insertions.push({ record, toggled: disabledGone.has(key) });
  // a plan's SOA (DNS UPDATE: a serial that rises) is the zone's new SOA; `soa: 'fields'` gives the SOA its
  // fields as given (its serial is the set's own step): the engine tells whether they differ from the zone's
  const soaRecord = policy.soaRecord;
  const soa: SoaEdit = soaRecord
    ? { serialSetByCaller: soaSerial(soaRecord.rdata), soaRdata: soaRecord.rdata, soaTtl: soaRecord.ttl }
    : soaFields
      ? { soaRdata: soaFields.rdata, soaTtl: soaFields.ttl }
      : {};
  const disabledDelta = {
    removed: [...disabledGone.values()].map((d) => d.record),
    added: [...disabledCome.values()].map((d) => ({
      owner: d.record.owner,
      type: d.record.type,
      ttl: d.record.ttl,
      rdata: d.record.rdata,
    })),
  };
  const written = [...keptBack.values()];
  // the change that adds each record, by identity (the last, as keptBack keeps the last)
  let addedByMade: Map<string, number> | undefined;
  const addedBy = (record: Pick<CanonicalRecord, 'owner' | 'type' | 'rdata'>) => {
    if (!addedByMade) {
      addedByMade = new Map();
      for (let i = 0; i < additions.length; i++) addedByMade.set(recordIdentity(additions[i]), additionBy[i]);
    }
    return addedByMade.get(recordIdentity(record));
  };
  // a protected RRset refuses any change of it, served or kept disabled (docs/changes.md, "Protected RRsets"), and
  // so does a steered one: its records are steering's to decide (docs/steering.md), a hand edit would be undone
  const guards = policy.guards;
  if (guards?.protectedRrsets?.size || guards?.steeredRrsets?.size) {
    const at = (index: number | undefined) => (index !== undefined ? `changes[${index}]` : 'changes');
    const touched = [
      ...removals.map(({ row }) => ({ owner: row.owner, type: row.type, field: at(removedBy.get(row.id)) })),
      ...insertions.map(({ record }) => ({ owner: record.owner, type: record.type, field: at(addedBy(record)) })),
      ...[...disabledGone.values(), ...disabledCome.values()].map(({ record, index }) => ({
        owner: record.owner,
        type: record.type,
        field: at(index),
      })),
    ];
    for (const [code, guarded] of [
      ['RRSET_PROTECTED', guards.protectedRrsets],
      ['RRSET_STEERED', guards.steeredRrsets],
    ] as const) {
      const refused = guarded?.size ? guardedProblems(code, name, guarded, touched) : [];
      if (refused.length) return refusal(refused, errorFromProblems(refused));
    }
  }
  // the zone checks over what the plan adds, on the zone as it will be: an error refuses the set (a warning
  // too on a zone with strictChecks), each named by the change that adds its record
  const strict = policy.guards?.strictChecks ?? false;
  const findings = written.length ? checkZoneRecords(name, desired, written) : [];
  const refusing = findings.filter((f) => refusesChange(f, strict));
  if (refusing.length) {
    const found = refusing.map((f) => findingDetail(f, addedBy({ owner: f.owner, type: f.type, rdata: f.rdata ?? '' })));
    return refusal(found, errorFromProblems(found));
  }
  const warnings = findings.map((f) => findingDetail(f));
  // the apex NS set the plan leaves, against what the parent lists (the health checker's last look): a plan that
  // changes the set answers whether the parent has it yet; one that leaves it as it is says nothing of it (a
  // difference the zone had already holds up no unrelated change: `checkZone` lists it)
  if (policy.guards?.parentNs) {
    const apexNs = (r: { owner: string; type: string }) => r.owner === '@' && r.type === 'NS';
    const names = (records: readonly { rdata: string }[]) => [...new Set(records.map((r) => r.rdata.toLowerCase()))].sort().join(' ');
    const after = desired.filter(apexNs);
    if (names(after) !== names(current.filter(apexNs))) {
      const finding = apexNsNotAtParent(
        name,
        after.map((r) => r.rdata),
        policy.guards.parentNs,
      );
      if (finding) {
        const by = Math.min(
          ...removals.filter(({ row }) => apexNs(row)).map(({ row }) => removedBy.get(row.id)!),
          ...insertions.filter(({ record }) => apexNs(record)).map(({ record }) => addedBy(record) ?? Infinity),
        );
        const detail = findingDetail(finding, Number.isFinite(by) ? by : undefined);
        if (strict) return refusal([detail], errorFromProblems([detail]));
        warnings.push(findingDetail(finding));
      }
    }
  }
  return {
    plan: {
      zone: name,
      serialBefore: zone.serial,
      removals,
      insertions,
      disabled: disabledDelta,
      soa,
      warnings,
    },
  };
}

/** the share of a zone a plan may delete or replace unforced, and the size below which any share may go (octoDNS's safety threshold) */
export const SAFETY_SHARE = 0.3;
export const SAFETY_MIN_RECORDS = 10;

/**
 * The safety threshold (docs/changes.md): a plan that deletes or replaces more than 30 % of a zone of 10 records
 * or more (`zoneRecords`, its SOA aside), or changes the apex NS, is refused with CHANGE_NEEDS_FORCE until the
 * caller says force; undefined when it passes. A replaced record is a removal and an insertion, so the removals
 * count both.
 */
export function safetyRefusal(plan: Pick<ChangePlan, 'zone' | 'removals' | 'insertions'>, zoneRecords: number): DomainError | undefined {
  const problems: ErrorDetail[] = [];
  const removed = plan.removals.length;
  if (zoneRecords >= SAFETY_MIN_RECORDS && removed > SAFETY_SHARE * zoneRecords)
    problems.push({
      field: 'changes',
      code: 'CHANGE_NEEDS_FORCE',
      message: `changes: the set deletes or replaces ${removed} of the ${zoneRecords} records of ${plan.zone} (more than ${SAFETY_SHARE * 100} %); send it again with force`,
      limit: Math.floor(SAFETY_SHARE * zoneRecords),
      current: removed,
    });
  const apexNs = (r: { owner: string; type: string }) => r.owner === '@' && r.type === 'NS';
  if (plan.removals.some(({ row }) => apexNs(row)) || plan.insertions.some(({ record }) => apexNs(record)))
    problems.push({
      field: 'changes',
      code: 'CHANGE_NEEDS_FORCE',
      message: `changes: the set changes the apex NS of ${plan.zone}, which moves its delegation; send it again with force`,
      owner: '@',
      type: 'NS',
    });
  return problems.length ? errorFromProblems(problems) : undefined;
}

/**
 * The served records of each RRset a plan removes from or adds to, before and after it, in the order met: what a
 * dry run shows (made only when asked: a bulk set's write has no use for it)
 */
export function plannedRrsets(zone: Pick<ZoneAsRead, 'records'>, plan: Pick<ChangePlan, 'removals' | 'insertions'>): PlannedRrset[] {
  const { removals, insertions } = plan;
  const current = zone.records;
  if (!removals.length && !insertions.length) return [];
  const byKey = new Map<string, PlannedRrset>();
  const touch = (owner: string, type: string) => {
    const key = `${owner} ${type}`;
    if (!byKey.has(key)) byKey.set(key, { owner, type, before: [], after: [] });
  };
  for (const { row } of removals) touch(row.owner, row.type);
  for (const { record } of insertions) touch(record.owner, record.type);
  const removedIds = new Set(removals.map((r) => r.row.id));
  for (const row of current) {
    const rrset = byKey.get(`${row.owner} ${row.type}`);
    if (!rrset) continue;
    rrset.before.push(row);
    if (!removedIds.has(row.id)) rrset.after.push(row);
  }
  for (const { record } of insertions) byKey.get(`${record.owner} ${record.type}`)!.after.push(record);
  return [...byKey.values()];
}

/**
 * Whether a plan changes nothing the zone serves or keeps: nothing removed, inserted or disabled, no SOA field
 * but the serial other than the zone's and no serial asked beyond it. The engine asks the same of what it staged
 * (ZoneChange.changesNothing, which also knows the signer's records); such a plan writes nothing.
 */
export function planChangesNothing(plan: ChangePlan, zone: Pick<ZoneAsRead, 'serial' | 'soa'>): boolean {
  const { soa } = plan;
  return (
    plan.removals.length === 0 &&
    plan.insertions.length === 0 &&
    plan.disabled.removed.length === 0 &&
    plan.disabled.added.length === 0 &&
    (soa.soaRdata === undefined || withSerial(soa.soaRdata, 0) === withSerial(zone.soa.rdata, 0)) &&
    (soa.soaTtl === undefined || soa.soaTtl === zone.soa.ttl) &&
    (soa.serialSetByCaller === undefined || !serialGreaterThan(soa.serialSetByCaller, zone.serial))
  );
}
