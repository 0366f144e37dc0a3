import { CanonicalRecord, recordIdentity } from '../../dns/record';
import { checkZoneIndexed, soaSerial, withSerial } from '../../dns/zone-rules';
import { apexNsNotAtParent, checkZoneRecords } from '../../dns/zone-checks';
import { serialGreaterThan } from '../../dns/serial';
import { DomainError, ErrorDetail, errorFromProblems } from '../../errors/catalogue';
import { decide, isRestricted, type KeyPolicy } from '../../auth/policy';
import { SetStaging } from './plan-staging';
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
  /**
   * a person's edit of one record (RecordsService.update): the record of this id, replaced by one other, is
   * written in place and keeps its id (ChangePlan.inPlace), as the record API promises
   */
  editInPlace?: number;
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

/** a plan refused: every problem found, and the error that says them */
export type PlanRefusal = { problems: ErrorDetail[]; refusal: DomainError };

export type PlanOutcome = { plan: ChangePlan } | PlanRefusal;

/** the changes of a set the key's policy refuses, each named by its index, the first in the message */
export function refusedByPolicy(refused: ErrorDetail[]): DomainError {
  const message = refused.length === 1 ? refused[0].message : `${refused[0].message} (and ${refused.length - 1} more refused)`;
  return new DomainError('FORBIDDEN_BY_POLICY', message, refused);
}

const refusal = (problems: ErrorDetail[], error: DomainError): PlanRefusal => ({ problems, refusal: error });

/**
 * Plans a change set on `zone` as read: the rules over the zone as it will be after the whole set, the key's
 * policy over every change, PowerDNS's REPLACE/EXTEND/PRUNE/DISABLE/ENABLE semantics. Pure: the same zone and
 * changes give the same plan. Every problem of the set comes back at once, each naming its change. Its steps, in
 * order, each a function of its own: the changes staged and what is kept disabled reconciled (plan-staging.ts);
 * what the set names refused where it is not there or not the key's; the zone rules on the zone as it will be;
 * the plan assembled; the zone's guards; the zone checks' findings, of which `refusesChange` says which refuse.
 */
export function planChangeSet(zone: ZoneAsRead, parsed: readonly (ParsedChange | undefined)[], policy: PlanPolicy = {}): PlanOutcome {
  const staged = new SetStaging(zone, policy.keyPolicy, policy.soa, policy.invalid).stageAll(parsed).reconcileDisabled();
  const refused = refusalOfNamed(zone.name, staged) ?? refusalOfKey(zone.name, staged, policy.keyPolicy);
  if (refused) return refused;
  const desired = zoneAfter(zone, staged);
  if ('refusal' in desired) return desired;
  const assembled = assemble(zone, staged, policy);
  const guarded = refusalOfGuards(zone.name, staged, assembled, policy.guards);
  if (guarded) return guarded;
  const warnings = findingsOf(zone, desired.records, staged, assembled, policy.guards);
  if ('refusal' in warnings) return warnings;
  const { written: _written, addedBy: _addedBy, ...plan } = assembled;
  return { plan: { ...plan, warnings: warnings.warnings } };
}

/**
 * Changes that name records the zone lacks, one changed twice, or an SOA a set may not change stop here: the
 * rules would speak of a zone that cannot be. A set whose only problems are records not found is RECORD_NOT_FOUND.
 */
function refusalOfNamed(zone: string, staged: SetStaging): PlanOutcome | undefined {
  const { problems } = staged;
  if (problems.some((p) => p.code === 'RECORD_NOT_FOUND') && problems.every((p) => p.code === 'RECORD_NOT_FOUND')) {
    const message = problems.length === 1 ? problems[0].message : `${problems.length} records of the set are not in zone ${zone}`;
    return refusal(problems, new DomainError('RECORD_NOT_FOUND', message, problems));
  }
  if (problems.some((p) => p.code === 'RECORD_NOT_FOUND' || p.code === 'RECORD_CHANGED_TWICE' || p.code === 'SOA_IN_CHANGE_SET'))
    return refusal(problems, errorFromProblems(problems));
  return undefined;
}

/** the key's policy over every change: what it removes and what it adds, each named by its index */
function refusalOfKey(zone: string, staged: SetStaging, keyPolicy: KeyPolicy | undefined): PlanOutcome | undefined {
  if (!isRestricted(keyPolicy)) return undefined;
  const refused: ErrorDetail[] = [];
  const check = (owner: string, type: string, index: number) => {
    const decision = decide(keyPolicy, { zone, owner, type, access: 'write' });
    const field = `changes[${index}]`;
    if (!decision.allowed && !refused.some((r) => r.field === field))
      refused.push({ field, code: 'FORBIDDEN_BY_POLICY', message: `${field}: ${decision.missing}` });
  };
  for (const set of staged.rrsets) check(set.owner, set.type, set.index);
  for (const row of staged.removed.values()) check(row.owner, row.type, staged.removedBy.get(row.id)!);
  staged.additions.forEach((record, i) => check(record.owner, record.type, staged.additionBy[i]));
  for (const { record, index } of [...staged.disabledGone.values(), ...staged.disabledCome.values()])
    check(record.owner, record.type, index);
  if (!refused.length) return undefined;
  const sorted = refused.sort((a, b) => a.field.localeCompare(b.field, 'en', { numeric: true }));
  return refusal(sorted, refusedByPolicy(sorted));
}

/**
 * The zone as it will be (what stays, then what comes), held to the zone rules, so that a rule broken by the set
 * names its change; a zone-wide rule a removal broke (the apex left without NS, RFC 1034 §4.2.1) names the first
 * change that removed an apex NS, as one an addition broke names that addition. Any problem left refuses the set.
 */
function zoneAfter(zone: ZoneAsRead, staged: SetStaging): { records: CanonicalRecord[] } | PlanRefusal {
  const { removed, removedBy, additions, additionBy } = staged;
  const kept = zone.records.filter((r) => !removed.has(r.id));
  const desired: CanonicalRecord[] = [...kept];
  for (const record of additions) desired.push(record);
  const apexNsRemovedBy = Math.min(
    ...[...removed.values()].filter((r) => r.owner === '@' && r.type === 'NS').map((r) => removedBy.get(r.id)!),
  );
  const problems = staged.problems;
  for (const found of checkZoneIndexed(zone.name, desired)) {
    const addedBy = found.index !== undefined && found.index >= kept.length ? additionBy[found.index - kept.length] : undefined;
    const by = addedBy ?? (found.problem.code === 'APEX_NS_MISSING' && Number.isFinite(apexNsRemovedBy) ? apexNsRemovedBy : undefined);
    problems.push(
      by !== undefined
        ? { ...found.problem, field: `changes[${by}].${found.problem.field}`, message: `changes[${by}].${found.problem.message}` }
        : found.problem,
    );
  }
  if (problems.length) return { problems, refusal: errorFromProblems(problems) };
  return { records: desired };
}

/** a plan as assembled, with what the later steps ask of it: the records it writes, and the change adding each */
type AssembledPlan = Omit<ChangePlan, 'warnings'> & {
  written: CanonicalRecord[];
  addedBy: (record: Pick<CanonicalRecord, 'owner' | 'type' | 'rdata'>) => number | undefined;
};

/**
 * The plan's removals, insertions, disabled delta and SOA edit: a record removed and added back unchanged is no
 * change at all; a person's edit of one record (`editInPlace`) keeps the record's id
 */
function assemble(zone: ZoneAsRead, staged: SetStaging, policy: PlanPolicy): AssembledPlan {
  const { keptBack, disabledCome, disabledGone, additions, additionBy } = staged;
  const removals: ChangePlan['removals'] = [];
  for (const row of staged.removed.values()) {
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
  const soaFields = staged.soaFields;
  const soa: SoaEdit = soaRecord
    ? { serialSetByCaller: soaSerial(soaRecord.rdata), soaRdata: soaRecord.rdata, soaTtl: soaRecord.ttl }
    : soaFields
      ? { soaRdata: soaFields.rdata, soaTtl: soaFields.ttl }
      : {};
  const disabled = {
    removed: [...disabledGone.values()].map((d) => d.record),
    added: [...disabledCome.values()].map(({ record: { owner, type, ttl, rdata } }) => ({ owner, type, ttl, rdata })),
  };
  // the change that adds each record, by identity (the last, as keptBack keeps the last)
  let addedByMade: Map<string, number> | undefined;
  const addedBy = (record: Pick<CanonicalRecord, 'owner' | 'type' | 'rdata'>) => {
    if (!addedByMade) {
      addedByMade = new Map();
      for (let i = 0; i < additions.length; i++) addedByMade.set(recordIdentity(additions[i]), additionBy[i]);
    }
    return addedByMade.get(recordIdentity(record));
  };
  // one record replaced by one other: the edit is written in place (ZoneChange.replace), the row keeping its id
  const inPlace =
    policy.editInPlace !== undefined && removals.length === 1 && insertions.length === 1 && removals[0].row.id === policy.editInPlace
      ? { row: removals[0].row, record: insertions[0].record }
      : undefined;
  return {
    zone: zone.name,
    serialBefore: zone.serial,
    removals,
    insertions,
    disabled,
    soa,
    ...(inPlace ? { inPlace } : {}),
    written: [...keptBack.values()],
    addedBy,
  };
}

/**
 * A protected RRset refuses any change of it, served or kept disabled (docs/changes.md, "Protected RRsets"), and
 * so does a steered one: its records are steering's to decide (docs/steering.md), a hand edit would be undone
 */
function refusalOfGuards(zone: string, staged: SetStaging, plan: AssembledPlan, guards: PlanGuards | undefined): PlanOutcome | undefined {
  if (!guards?.protectedRrsets?.size && !guards?.steeredRrsets?.size) return undefined;
  const at = (index: number | undefined) => (index !== undefined ? `changes[${index}]` : 'changes');
  const touched = [
    ...plan.removals.map(({ row }) => ({ owner: row.owner, type: row.type, field: at(staged.removedBy.get(row.id)) })),
    ...plan.insertions.map(({ record }) => ({ owner: record.owner, type: record.type, field: at(plan.addedBy(record)) })),
    ...[...staged.disabledGone.values(), ...staged.disabledCome.values()].map(({ record, index }) => ({
      owner: record.owner,
      type: record.type,
      field: at(index),
    })),
  ];
  for (const [code, guarded] of [
    ['RRSET_PROTECTED', guards.protectedRrsets],
    ['RRSET_STEERED', guards.steeredRrsets],
  ] as const) {
    const refused = guarded?.size ? guardedProblems(code, zone, guarded, touched) : [];
    if (refused.length) return refusal(refused, errorFromProblems(refused));
  }
  return undefined;
}

/**
 * The zone checks over what the plan adds, on the zone as it will be: `refusesChange` is the one policy of which
 * refuse (an error; a warning too on a zone with strictChecks), each named by the change that adds its record;
 * the others are the plan's warnings. Then the apex NS set the plan leaves, against what the parent lists (the
 * health checker's last look): a plan that changes the set answers whether the parent has it yet; one that leaves
 * it as it is says nothing of it (a difference the zone had already holds up no unrelated change: `checkZone`
 * lists it).
 */
function findingsOf(
  zone: ZoneAsRead,
  desired: readonly CanonicalRecord[],
  staged: SetStaging,
  plan: AssembledPlan,
  guards: PlanGuards | undefined,
): { warnings: ErrorDetail[] } | PlanRefusal {
  const strict = guards?.strictChecks ?? false;
  const findings = plan.written.length ? checkZoneRecords(zone.name, desired as CanonicalRecord[], plan.written) : [];
  const refusing = findings.filter((f) => refusesChange(f, strict));
  if (refusing.length) {
    const found = refusing.map((f) => findingDetail(f, plan.addedBy({ owner: f.owner, type: f.type, rdata: f.rdata ?? '' })));
    return refusal(found, errorFromProblems(found));
  }
  const warnings = findings.map((f) => findingDetail(f));
  if (!guards?.parentNs) return { warnings };
  const apexNs = (r: { owner: string; type: string }) => r.owner === '@' && r.type === 'NS';
  const names = (records: readonly { rdata: string }[]) => [...new Set(records.map((r) => r.rdata.toLowerCase()))].sort().join(' ');
  const after = desired.filter(apexNs);
  if (names(after) === names(zone.records.filter(apexNs))) return { warnings };
  const finding = apexNsNotAtParent(
    zone.name,
    after.map((r) => r.rdata),
    guards.parentNs,
  );
  if (!finding) return { warnings };
  const by = Math.min(
    ...plan.removals.filter(({ row }) => apexNs(row)).map(({ row }) => staged.removedBy.get(row.id)!),
    ...plan.insertions.filter(({ record }) => apexNs(record)).map(({ record }) => plan.addedBy(record) ?? Infinity),
  );
  const detail = findingDetail(finding, Number.isFinite(by) ? by : undefined);
  if (strict) return refusal([detail], errorFromProblems([detail]));
  return { warnings: [...warnings, findingDetail(finding)] };
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
