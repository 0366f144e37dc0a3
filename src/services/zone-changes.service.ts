import type { Settings } from '../config/settings';
import type { JournalRecord } from '../entities/change.entity';
import { collectNameWarnings, parseOwner } from '../dns/name';
import {
  CanonicalRecord,
  type KnownRrset,
  parseApiRecord,
  parseStandaloneRecord,
  parseStandaloneRecords,
  type RecordInput,
  type RecordResult,
  recordIdentity,
  unsupportedTypeProblem,
} from '../dns/record';
import { type AllowedTtls, clampTtl, MAX_TTL } from '../dns/ttl';
import { ownersToCheck } from '../dns/zone-checks';
import { warnAbout } from './zone-warnings';
import { getRecordType } from '../dns/record-types';
import { checkZoneIndexed, soaSerial } from '../dns/zone-rules';
import { DomainError, ErrorDetail, errorFromProblems } from '../errors/catalogue';
import type { StoredRow } from '../repositories/zone-writes';
import type { RequestContext } from './context';
import { normaliseZoneName } from '../dns/zone-name';
import type { WriteEngine, ZoneChange } from './write-engine';
import type { CommitOptions } from './write-engine/staging';
import { decide, isRestricted, readsRecord } from '../auth/policy';
import { replaceRrsetComments, type RrsetComments } from '../repositories/rrset-comments';
import { RrsetCommentsService, type RrsetCommentsInput } from './rrset-comments.service';
import { countDisabled, disabledOfZone, writeDisabledRecords, type DisabledRecord } from '../repositories/disabled-records';
import { quotaExceeded } from './quotas';
import type { PlannedChanges, PlanView, ZoneChangeOptions, ZoneChangesResult, ZoneChangeSpec } from './zone-change-set';

export type { PlannedChanges, PlanView, ZoneChangeKind, ZoneChangeOptions, ZoneChangesResult, ZoneChangeSpec } from './zone-change-set';

/** the fields each kind of change needs (`lacks`) */
const ADD_FIELDS: readonly (keyof ZoneChangeSpec)[] = ['owner', 'type', 'rdata', 'ttl'];
const REPLACE_FIELDS: readonly (keyof ZoneChangeSpec)[] = ['id', 'owner', 'type', 'rdata', 'ttl'];
const MATCH_FIELDS: readonly (keyof ZoneChangeSpec)[] = ['owner', 'type', 'rdata'];
const RRSET_FIELDS: readonly (keyof ZoneChangeSpec)[] = ['owner', 'type', 'rdatas'];
const TTL_FIELD: readonly (keyof ZoneChangeSpec)[] = ['ttl'];
/** no allow-list of TTLs: a record only matched (PRUNE_RRSET), whose TTL is not read */
const NO_TTL_RULE: AllowedTtls = [];

/** `found` named as change `index`'s own (`changes[3].rdata`) */
const ofChange = (index: number, found: readonly ErrorDetail[]): ErrorDetail[] =>
  found.map((p) => ({ ...p, field: `changes[${index}].${p.field}`, message: `changes[${index}].${p.message}` }));

/** whether `change` lacks one of `fields`; each one it lacks is a REQUIRED problem of change `index` */
function lacks(change: ZoneChangeSpec, index: number, fields: readonly (keyof ZoneChangeSpec)[], problems: ErrorDetail[]): boolean {
  let complete = true;
  for (let i = 0; i < fields.length; i++) if (change[fields[i]] === undefined || change[fields[i]] === null) complete = false;
  if (complete) return false;
  const absent = fields.filter((f) => change[f] === undefined || change[f] === null);
  problems.push(
    ...ofChange(
      index,
      absent.map((f) => ({ field: f, code: 'REQUIRED', message: `${f}: a ${change.kind} change needs ${f}` })),
    ),
  );
  return true;
}

/** a record read for change `index`: its problems are the change's, else its record, its warnings the change's too */
function taken(parsed: RecordResult, index: number, problems: ErrorDetail[], warnings: ErrorDetail[]): CanonicalRecord | undefined {
  if (!parsed.ok) {
    problems.push(...ofChange(index, parsed.problems));
    return undefined;
  }
  if (parsed.warnings.length) warnings.push(...ofChange(index, parsed.warnings));
  return parsed.record;
}

/**
 * An RRset's records (`input`: its owner, type and TTL) read for change `index`: content that stands alone is
 * read under one set of the reading's modes, the record API's text one record at a time; each record's result,
 * problems and warnings its own, in order
 */
function readRrset(
  zone: string,
  input: Omit<RecordInput, 'rdata'>,
  rdatas: readonly string[],
  allowedTtls: AllowedTtls,
  rrset: KnownRrset | undefined,
  standalone: boolean,
  index: number,
  problems: ErrorDetail[],
  warnings: ErrorDetail[],
): (CanonicalRecord | undefined)[] {
  const records = new Array<CanonicalRecord | undefined>(rdatas.length);
  if (standalone) {
    const results = parseStandaloneRecords(zone, input, rdatas, allowedTtls, rrset);
    for (let i = 0; i < results.length; i++) records[i] = taken(results[i], index, problems, warnings);
  } else {
    for (let i = 0; i < rdatas.length; i++)
      records[i] = taken(parseApiRecord(zone, { ...input, rdata: rdatas[i] }, allowedTtls, rrset), index, problems, warnings);
  }
  return records;
}

/** an insert that serves again a record kept disabled, which the journal says (one object for every such insert) */
const TOGGLED = { toggled: true } as const;

/** what a set meets kept disabled when it meets none (the usual set): one pair of empty maps, only read */
const NO_DISABLED: { byIdentity: ReadonlyMap<string, DisabledRecord>; byRrset: ReadonlyMap<string, DisabledRecord[]> } = {
  byIdentity: new Map(),
  byRrset: new Map(),
};

/** the changes of a set the key's policy refuses, each named by its index, the first in the message */
function refusedByPolicy(refused: ErrorDetail[]): DomainError {
  const message = refused.length === 1 ? refused[0].message : `${refused[0].message} (and ${refused.length - 1} more refused)`;
  return new DomainError('FORBIDDEN_BY_POLICY', message, refused);
}

/**
 * Change sets: many record changes of one zone applied as one change (docs/decisions.md §3: the serial rises
 * once; one journal row, so a secondary takes one IXFR; a set that changes nothing, none). All or nothing: every change is validated by the DNS
 * model and the zone rules are checked on the zone as it will be after the whole set (a CNAME may replace the
 * A records of its owner in one set); every problem comes back at once, each naming its change
 * (`changes[3].rdata`). With `expectSerial`, the set applies only if the zone is still at that serial
 * (optimistic concurrency for scripts: a replay after a timeout is refused, never applied twice).
 *
 * Only the records the set touches are read (its owners, its records by id, and the apex): the zone rules are
 * per owner plus the apex's SOA and NS, so a set costs time in proportion to itself, not to the zone.
 */
export class ZoneChangesService {
  private readonly comments = new RrsetCommentsService();

  constructor(
    private readonly settings: Settings,
    /** the write engine every change of a zone goes through (services/index.ts) */
    private readonly engine: WriteEngine,
  ) {}

  /**
   * `comments`: RRsets whose comments become those given (docs/powerdns-api.md), written in the set's
   * transaction; a set of comments alone changes no record and steps no serial.
   */
  async apply(
    ctx: RequestContext,
    input: { zone: string; changes: ZoneChangeSpec[]; expectSerial?: number; comments?: readonly RrsetCommentsInput[] },
    options: ZoneChangeOptions = {},
  ): Promise<ZoneChangesResult & { changed: boolean }> {
    const zone = normaliseZoneName(input.zone);
    const commentsGiven = input.comments ?? [];
    if (input.changes.length === 0 && commentsGiven.length === 0)
      throw DomainError.invalid('changes', 'changes: a change set needs at least one change', 'EMPTY_CHANGE_SET');
    this.checkSize(input.changes.length + commentsGiven.length);
    // what can be decided without the zone: every record's own validity; its problems are reported with the
    // ones the zone's rules find in the valid changes (every problem of the set at once), after the zone is
    // read, so a zone the caller cannot see is ZONE_NOT_FOUND whatever the changes hold
    const { sets: comments, problems: commentProblems } = this.comments.check(zone, commentsGiven);
    const invalid: ErrorDetail[] = [...commentProblems];
    const readingWarnings: ErrorDetail[] = [];
    const parsed = input.changes.map((change, index) => this.parseChange(zone, change, index, invalid, options, readingWarnings));
    // the owners the set names, and the names the zone checks need for what it adds (targets, delegations above)
    const records: CanonicalRecord[] = [];
    for (const p of parsed) if (p) for (const record of p.records) records.push(record);
    const owners = ownersToCheck(zone, records);
    const recordIds: number[] = [];
    for (const p of parsed) {
      if (p && 'disabledRecords' in p) for (const r of p.disabledRecords ?? []) owners.push(r.owner);
      if (p && 'owner' in p && p.owner) owners.push(p.owner);
      if (p && 'match' in p && p.match) owners.push(p.match.owner);
      if (p && 'id' in p && p.id !== undefined && p.id !== null) recordIds.push(p.id);
    }
    const result = await this.run(
      ctx,
      zone,
      {
        expectSerial: input.expectSerial,
        touching: { owners, recordIds },
        comments,
        soa: options.soa,
      },
      () => ({ parsed, invalid }),
    );
    // what reading the records' text changed (a long TXT split, a name outside the host-name rule), beside the
    // zone checks' warnings, as a single record's write says it
    ctx.warnings?.push(...readingWarnings);
    return result;
  }

  /**
   * The records of a zone about to be created, read and checked as a change set's ADDs would be (each problem
   * named `changes[i]`), with the zone rules over them and the apex SOA the zone will have: a zone created with
   * records (PowerDNS's zone creation) is refused whole, before anything is written. With `soa: 'fields'`, an
   * apex SOA among them is the zone's SOA instead of `soa` (its serial is the zone's: DomainsService.create's
   * `soa`), returned apart from the records.
   */
  parseInitialRecords(
    ctx: RequestContext,
    zone: string,
    soa: CanonicalRecord,
    given: { records: ZoneChangeSpec[]; nameservers: ZoneChangeSpec[] },
    options: ZoneChangeOptions = {},
  ): { records: CanonicalRecord[]; soa?: CanonicalRecord } {
    // `nameservers`: the apex NS the zone is created with (named with it, or the defaults), as a template's are:
    // the zone's skeleton, which creating a zone gives whatever the key's rules (they come after `records`)
    const changes = [...given.records, ...given.nameservers];
    this.checkSize(changes.length);
    const invalid: ErrorDetail[] = [];
    const parsed = changes.map((change, index) => this.parseChange(zone, { ...change, kind: 'ADD' }, index, invalid, options));
    if (invalid.length) throw errorFromProblems(invalid);
    // the key's policy over every record it creates the zone with, as over a change set's additions: a key that
    // may create zones writes in them only what its rules allow (docs/least-privilege.md)
    const policy = ctx.principal.policy;
    if (isRestricted(policy)) {
      const refused: ErrorDetail[] = [];
      parsed.slice(0, given.records.length).forEach((p, index) => {
        const record = p?.records[0];
        if (!record) return;
        const decision = decide(policy, { zone, owner: record.owner, type: record.type, access: 'write' });
        if (!decision.allowed)
          refused.push({ field: `changes[${index}]`, code: 'FORBIDDEN_BY_POLICY', message: `changes[${index}]: ${decision.missing}` });
      });
      if (refused.length) throw refusedByPolicy(refused);
    }
    // `soa: 'fields'`: an apex SOA among them gives the zone's SOA its fields (its serial is the zone's)
    const soaIndexes = parsed.flatMap((p, index) =>
      options.soa === 'fields' && p?.records.some((r) => r.type === 'SOA' && r.owner === '@') ? [index] : [],
    );
    if (soaIndexes.length > 1 || (soaIndexes.length === 1 && parsed[soaIndexes[0]]!.records.length > 1)) {
      const at = soaIndexes[soaIndexes.length > 1 ? 1 : 0];
      throw errorFromProblems([
        {
          field: `changes[${at}].rdata`,
          code: 'SOA_IN_CHANGE_SET',
          message: `changes[${at}].rdata: a zone has one SOA record (RFC 1035 §5.2); give one`,
        },
      ]);
    }
    const givenSoa = soaIndexes.length ? parsed[soaIndexes[0]]!.records[0] : undefined;
    const zoneSoa = givenSoa ?? soa;
    const records = parsed.flatMap((p) => (p?.records ?? []).filter((r) => r !== givenSoa));
    const unique = [...new Map(records.map((r) => [recordIdentity(r), r])).values()];
    const problems: ErrorDetail[] = [];
    for (const found of checkZoneIndexed(zone, [zoneSoa, ...unique])) {
      const index = found.index !== undefined && found.index > 0 ? records.indexOf(unique[found.index - 1]) : -1;
      problems.push(
        index >= 0
          ? { ...found.problem, field: `changes[${index}].${found.problem.field}`, message: `changes[${index}].${found.problem.message}` }
          : found.problem,
      );
    }
    if (problems.length) throw errorFromProblems(problems);
    return { records: unique, soa: givenSoa };
  }

  /**
   * A change set decided on the zone as read, in the same attempt as its write (DNS UPDATE, RFC 2136 §3.2 and
   * §3.4: prerequisites and "delete what is there" need the zone's current records): `plan` sees the zone and
   * returns the changes, and may replace the SOA (a serial that rises, §3.4.2.2). It may throw to refuse; it
   * runs again if the zone moved before the write. A plan that changes nothing writes nothing (the serial
   * stays, RFC 2136 §3.7).
   */
  async applyPlanned(
    ctx: RequestContext,
    input: { zone: string; owners: string[]; plan: (zone: PlanView) => PlannedChanges },
  ): Promise<ZoneChangesResult & { changed: boolean }> {
    const zone = normaliseZoneName(input.zone);
    return this.run(ctx, zone, { touching: { owners: input.owners, recordIds: [] } }, (view) => {
      const planned = input.plan(view);
      if ('changes' in planned) {
        this.checkSize(planned.changes.length);
        return { parsed: this.parseChanges(zone, planned.changes), soa: planned.soa };
      }
      // records the plan has read: a DNS UPDATE's RRs were read a second time here
      this.checkSize(planned.removedIds.length + planned.additions.length);
      const parsed: ReturnType<ZoneChangesService['parseChanges']> = planned.removedIds.map((id) => ({ kind: 'REMOVE', id, records: [] }));
      for (const record of planned.additions) parsed.push({ kind: 'ADD', id: undefined, records: [record] });
      return { parsed, soa: planned.soa };
    });
  }

  private checkSize(count: number): void {
    if (count > this.settings.maxChangesPerSet) {
      throw new DomainError(
        'CHANGE_SET_TOO_LARGE',
        `A change set holds at most ${this.settings.maxChangesPerSet} changes (MAX_CHANGES_PER_SET); this one has ${count}`,
        [
          {
            field: 'changes',
            code: 'CHANGE_SET_TOO_LARGE',
            message: `changes: at most ${this.settings.maxChangesPerSet} changes per set`,
            limit: this.settings.maxChangesPerSet,
          },
        ],
      );
    }
  }

  private parseChanges(zone: string, changes: ZoneChangeSpec[]) {
    const invalid: ErrorDetail[] = [];
    const parsed = changes.map((change, index) => this.parseChange(zone, change, index, invalid));
    if (invalid.length) throw errorFromProblems(invalid);
    return parsed;
  }

  private run(
    ctx: RequestContext,
    zone: string,
    options: {
      expectSerial?: number;
      touching: { owners: string[]; recordIds: number[] };
      comments?: readonly RrsetComments[];
      soa?: ZoneChangeOptions['soa'];
    },
    prepare: (view: PlanView) => { parsed: ReturnType<ZoneChangesService['parseChanges']>; invalid?: ErrorDetail[]; soa?: CanonicalRecord },
  ): Promise<ZoneChangesResult & { changed: boolean }> {
    // the records the set touches and the apex (the rules are per owner, plus the apex's SOA and NS)
    const touching = { owners: [...new Set(['@', ...options.touching.owners])], recordIds: [...new Set(options.touching.recordIds)] };
    const comments = options.comments ?? [];
    return this.engine.changeZone(ctx.db, this.settings, ctx.principal, { zone: { name: zone }, touching }, async (change) => {
      // comments are written beside the records, in the transaction holding the zone row's lock (all or nothing)
      if (comments.length) {
        change.requireLock();
        this.comments.requireWritable(zone, ctx.principal.policy, comments);
      }
      const result = await this.decideRecords(ctx, zone, options, prepare, change);
      if (comments.length) await replaceRrsetComments(change.connection, change.zone.id, comments);
      return result;
    });
  }

  /** the rules over a change set on the zone as read, and its staging and commit (see `run`) */
  private async decideRecords(
    ctx: RequestContext,
    zone: string,
    options: { expectSerial?: number; soa?: ZoneChangeOptions['soa'] },
    prepare: (view: PlanView) => { parsed: ReturnType<ZoneChangesService['parseChanges']>; invalid?: ErrorDetail[]; soa?: CanonicalRecord },
    change: ZoneChange,
  ): Promise<ZoneChangesResult & { changed: boolean }> {
    if (options.expectSerial !== undefined && change.zone.serial !== options.expectSerial) {
      throw new DomainError(
        'SERIAL_MISMATCH',
        `The zone is at serial ${change.zone.serial}, not ${options.expectSerial}: it changed since it was read`,
        [
          {
            field: 'expectSerial',
            code: 'SERIAL_MISMATCH',
            message: `expectSerial: the zone's serial is ${change.zone.serial}`,
            current: change.zone.serial,
          },
        ],
      );
    }
    // decided afresh on every attempt (changeZone may decide again on a zone that moved meanwhile)
    const current = change.zone.sameOwner;
    const { parsed, invalid, soa } = prepare({ name: zone, serial: change.zone.serial, records: current });
    const disabled = await this.disabledTouched(change, parsed);
    const problems: ErrorDetail[] = [...(invalid ?? [])];
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
    const policy = ctx.principal.policy;
    // a record a restricted key may not read is not in the zone for it (docs/least-privilege.md)
    const visibleToKey = (row: StoredRow | undefined) => (row && readsRecord(policy, zone, row.owner, row.type) ? row : undefined);
    // the RRsets the set names, for a restricted key's policy alone (a key without rules makes no list of them)
    const restricted = isRestricted(policy);
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
          options.soa === 'fields'
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
      } else if (p.kind === 'REPLACE_RRSET' && p.type === 'SOA' && p.owner === '@' && p.records.length && options.soa === 'fields') {
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
        const kept = keptDisabled(p.match);
        if (kept && p.kind !== 'DISABLE') takeDisabled(kept, index);
        if (kept && p.kind === 'ENABLE') add({ ...p.match, ttl: kept.ttl }, index);
        if (!kept && !(p.kind === 'ENABLE' && visibleToKey(servedNow(p.match))))
          refuse(index, 'rdata', 'RECORD_NOT_FOUND', `rdata: zone ${zone} has no such ${p.kind === 'ENABLE' ? 'disabled ' : ''}record`);
      } else {
        const target = visibleToKey(p.id !== undefined ? byId(p.id) : byIdentity(recordIdentity(p.match!)));
        if (!target) {
          refuse(
            index,
            p.id !== undefined ? 'id' : 'rdata',
            'RECORD_NOT_FOUND',
            p.id !== undefined ? `id: record ${p.id} is not in zone ${zone}` : `rdata: zone ${zone} has no such record`,
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
    for (const { record, index } of disabledCome.values()) {
      const present = servedNow(record);
      if (present) remove(present, index);
      disabledGone.delete(recordIdentity(record));
    }
    if (problems.some((p) => p.code === 'RECORD_NOT_FOUND') && problems.every((p) => p.code === 'RECORD_NOT_FOUND')) {
      throw new DomainError(
        'RECORD_NOT_FOUND',
        problems.length === 1 ? problems[0].message : `${problems.length} records of the set are not in zone ${zone}`,
        problems,
      );
    }
    // changes that name records the zone lacks stop here (the rules would speak of a zone that cannot be)
    if (problems.some((p) => p.code === 'RECORD_NOT_FOUND' || p.code === 'RECORD_CHANGED_TWICE' || p.code === 'SOA_IN_CHANGE_SET'))
      throw errorFromProblems(problems);
    // the key's policy over every change: what it removes and what it adds, each named by its index
    if (restricted) {
      const refused: ErrorDetail[] = [];
      const check = (owner: string, type: string, index: number) => {
        const decision = decide(policy, { zone, owner, type, access: 'write' });
        const field = `changes[${index}]`;
        if (!decision.allowed && !refused.some((r) => r.field === field))
          refused.push({ field, code: 'FORBIDDEN_BY_POLICY', message: `${field}: ${decision.missing}` });
      };
      for (const set of rrsets) check(set.owner, set.type, set.index);
      for (const row of removed.values()) check(row.owner, row.type, removedBy.get(row.id)!);
      additions.forEach((record, i) => check(record.owner, record.type, additionBy[i]));
      for (const { record, index } of [...disabledGone.values(), ...disabledCome.values()]) check(record.owner, record.type, index);
      if (refused.length) throw refusedByPolicy(refused.sort((a, b) => a.field.localeCompare(b.field, 'en', { numeric: true })));
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
    for (const found of checkZoneIndexed(zone, desired)) {
      const addedBy = found.index !== undefined && found.index >= kept.length ? additionBy[found.index - kept.length] : undefined;
      const by = addedBy ?? (found.problem.code === 'APEX_NS_MISSING' && Number.isFinite(apexNsRemovedBy) ? apexNsRemovedBy : undefined);
      problems.push(
        by !== undefined
          ? { ...found.problem, field: `changes[${by}].${found.problem.field}`, message: `changes[${by}].${found.problem.message}` }
          : found.problem,
      );
    }
    if (problems.length) throw errorFromProblems(problems);

    // a record removed and added back unchanged is no change at all
    for (const row of removed.values()) {
      const key = recordIdentity(row);
      const back = keptBack.get(key);
      if (back && back.ttl === row.ttl) {
        keptBack.delete(key);
        continue;
      }
      change.remove(row, disabledCome.has(key));
    }
    for (const [key, record] of keptBack) change.insert(record, disabledGone.has(key) ? TOGGLED : undefined);
    const serialBefore = change.zone.serial;
    // a plan's SOA (DNS UPDATE: a serial that rises) is the zone's new SOA; `soa: 'fields'` gives the SOA its
    // fields as given (its serial is the set's own step): the engine tells whether they differ from the zone's
    const commit: CommitOptions = soa
      ? { serialSetByCaller: soaSerial(soa.rdata), soaRdata: soa.rdata, soaTtl: soa.ttl }
      : soaFields
        ? { soaRdata: soaFields.rdata, soaTtl: soaFields.ttl }
        : {};
    // what is kept disabled changes beside the served records, in this transaction (the zone row's lock is held)
    const disabledChange = {
      removed: [...disabledGone.values()].map((d) => d.record),
      added: [...disabledCome.values()].map((d) => ({
        owner: d.record.owner,
        type: d.record.type,
        ttl: d.record.ttl,
        rdata: d.record.rdata,
      })),
    };
    if (disabledChange.removed.length || disabledChange.added.length) {
      change.requireLock();
      await writeDisabledRecords(change.connection, change.zone.id, disabledChange);
      // a user's disabled records are held to MAX_RECORDS_PER_ZONE apart from the served ones (0: no limit), so
      // that what is kept and not served cannot grow without bound either; the transaction undoes the write
      const limit = this.settings.quotas.maxRecordsPerZone;
      if (ctx.principal.kind === 'user' && limit > 0 && disabledChange.added.length) {
        const held = await countDisabled(change.connection, change.zone.id);
        if (held > limit) throw quotaExceeded('maxRecordsPerZone', { limit, current: held }, `disabled records in zone ${zone}`);
      }
    }
    // a set that changes nothing served writes nothing (no serial step, journal row, event or NOTIFY), whichever
    // edge sent it (the engine's one rule: ZoneChange.changesNothing); one that changes only what is kept disabled
    // serves nothing new either, and says it changed something
    if (change.changesNothing(commit)) {
      const disabledOnly = disabledChange.removed.length + disabledChange.added.length > 0;
      return { zone, serialBefore, serial: serialBefore, added: [], removed: [], changed: disabledOnly };
    }
    await change.commit(commit);
    warnAbout(ctx, zone, desired, [...keptBack.values()]);
    const visible = (records: JournalRecord[]) => records.filter((r) => r.type !== 'SOA');
    return {
      zone,
      serialBefore,
      serial: change.serialAfter!,
      added: visible(change.added),
      removed: visible(change.removed),
      changed: true,
    };
  }

  /**
   * The disabled records at the owners a set names (DISABLE by id: the record's owner), by identity and by
   * RRset. A set that names disabled records, or meets some, is decided in the transaction holding the zone
   * row's lock: what is kept disabled changes beside the served records, all or nothing.
   */
  private async disabledTouched(change: ZoneChange, parsed: ReturnType<ZoneChangesService['parseChanges']>) {
    const owners = new Set<string>();
    let names = false;
    // a zone that keeps no disabled record (read with the zone) has none at these owners: they are not gathered
    // (a set of 1,000 REPLACEs gathered 1,000 owners for nothing) and no statement reads them
    const keepsDisabled = change.zone.hasDisabled;
    for (const p of parsed) {
      if (!p) continue;
      // a set that names disabled records writes them, under the zone row's lock; a REPLACE that keeps none (the
      // PowerDNS API's, every time) takes that lock only if it meets some below, so a plain REPLACE stays on the
      // optimistic path
      if (p.kind === 'DISABLE' || p.kind === 'ENABLE' || ('disabledRecords' in p && p.disabledRecords?.length)) names = true;
      if (!keepsDisabled) continue;
      if ('owner' in p && p.owner) owners.add(p.owner);
      if ('match' in p && p.match) owners.add(p.match.owner);
      if ('id' in p && p.id !== undefined && p.id !== null) {
        const row = change.zone.sameOwner.find((r) => r.id === p.id);
        if (row) owners.add(row.owner);
      }
      for (const r of p.records) owners.add(r.owner);
      for (const r of ('disabledRecords' in p && p.disabledRecords) || []) owners.add(r.owner);
    }
    if (names) change.requireLock();
    const rows = owners.size ? await disabledOfZone(change.connection, change.zone.id, { owners: [...owners] }) : [];
    if (!rows.length) return NO_DISABLED;
    change.requireLock();
    const byIdentity = new Map(rows.map((r) => [recordIdentity(r), r]));
    const byRrset = new Map<string, DisabledRecord[]>();
    for (const row of rows) byRrset.set(`${row.owner} ${row.type}`, [...(byRrset.get(`${row.owner} ${row.type}`) ?? []), row]);
    return { byIdentity, byRrset };
  }

  /**
   * one change, checked on its own; its problems are added to `problems` with the change's index. Its helpers
   * are functions of the module, not closures made for each change: a set of 1,000 RRsets made a dozen of them
   * (and their shared scope) for each, its largest allocation
   */
  private parseChange(
    zone: string,
    change: ZoneChangeSpec,
    index: number,
    problems: ErrorDetail[],
    options: ZoneChangeOptions = {},
    warnings: ErrorDetail[] = [],
  ) {
    const at = (found: ErrorDetail[]) => problems.push(...ofChange(index, found));
    const missing = (fields: readonly (keyof ZoneChangeSpec)[]) => lacks(change, index, fields, problems);
    // RFC 2181 §8's range is still checked; only the allow-list gives way to the nearest value
    const ttl =
      options.ttls === 'nearest' && Number.isInteger(change.ttl) && change.ttl! >= 0 && change.ttl! <= MAX_TTL
        ? clampTtl(change.ttl!, this.settings.allowedTtls)
        : change.ttl!;
    // a record only matched against the zone's (PRUNE_RRSET) is matched by canonical form, whatever the TTL
    const matchOnly = change.kind === 'PRUNE_RRSET';
    const allowedTtls = matchOnly ? NO_TTL_RULE : this.settings.allowedTtls;
    const recordTtl = matchOnly ? 0 : ttl;
    const standalone = options.rdataNames === 'fullyQualified';
    const record = (rdata: string) => {
      const input = { owner: change.owner!, type: change.type!, rdata, ttl: recordTtl };
      const parsed = standalone ? parseStandaloneRecord(zone, input, allowedTtls) : parseApiRecord(zone, input, allowedTtls);
      return taken(parsed, index, problems, warnings);
    };
    switch (change.kind) {
      case 'ADD':
      case 'REPLACE': {
        if (missing(change.kind === 'REPLACE' ? REPLACE_FIELDS : ADD_FIELDS)) return undefined;
        const next = record(change.rdata!);
        if (next && change.kind === 'ADD' && change.disabled) return { kind: change.kind, records: [], disabledRecords: [next] };
        return next && { kind: change.kind, id: change.id, records: [next] };
      }
      case 'REMOVE':
      case 'DISABLE':
      case 'ENABLE': {
        if (change.kind !== 'ENABLE' && change.id !== undefined && change.id !== null)
          return { kind: change.kind, id: change.id, records: [] };
        if (missing(MATCH_FIELDS)) return undefined;
        // matched by canonical form, whatever the TTL
        const parsed = parseApiRecord(zone, { owner: change.owner!, type: change.type!, rdata: change.rdata!, ttl: 0 }, []);
        if (!parsed.ok) {
          at(parsed.problems);
          return undefined;
        }
        return { kind: change.kind, match: parsed.record, records: [] };
      }
      case 'REPLACE_RRSET':
      case 'EXTEND_RRSET':
      case 'PRUNE_RRSET': {
        if (missing(RRSET_FIELDS)) return undefined;
        const disabledRdatas = change.kind === 'REPLACE_RRSET' ? change.disabledRdatas : undefined;
        if (change.rdatas!.length + (disabledRdatas?.length ?? 0) > 0 && !matchOnly && missing(TTL_FIELD)) return undefined;
        // the RRset's owner and type in canonical form, also when the new set is empty; read once for its records
        // where the owner reads with no warning (each record's reading reports the owner's warnings as its own)
        const { result: owner, warnings: ownerWarnings } = collectNameWarnings(() => parseOwner(change.owner!, zone, 'owner'));
        const definition = getRecordType(String(change.type).trim());
        if (!owner.ok) at(owner.problems);
        if (!definition) at([unsupportedTypeProblem(String(change.type), 'type')]);
        const known = owner.ok && definition && !ownerWarnings.length ? { owner: owner.name, definition } : undefined;
        const input = { owner: change.owner!, type: change.type!, ttl: recordTtl };
        const records = readRrset(zone, input, change.rdatas!, allowedTtls, known, standalone, index, problems, warnings);
        // none disabled (the PowerDNS API's REPLACE, every time): no reading at all, and still a list (they go)
        const disabled =
          disabledRdatas && disabledRdatas.length
            ? readRrset(zone, input, disabledRdatas, allowedTtls, known, standalone, index, problems, warnings)
            : disabledRdatas
              ? []
              : undefined;
        if (!owner.ok || !definition || records.includes(undefined) || disabled?.includes(undefined)) return undefined;
        // EXTEND_RRSET's records come disabled; a PRUNE_RRSET matches its records in either state. Written out, not
        // spread from a common part: the spread made each of a bulk set's 1,000 results slowly (a third of the parse)
        const kind = change.kind;
        const name = owner.name;
        const type = definition.type;
        if (kind === 'EXTEND_RRSET' && change.disabled)
          return { kind, owner: name, type, records: [], disabledRecords: records as CanonicalRecord[] };
        return {
          kind,
          owner: name,
          type,
          records: records as CanonicalRecord[],
          disabledRecords: disabled as CanonicalRecord[] | undefined,
        };
      }
      default:
        at([
          {
            field: 'kind',
            code: 'UNKNOWN_CHANGE_KIND',
            message: `kind: ${JSON.stringify(change.kind)} is not ADD, REMOVE, REPLACE, REPLACE_RRSET, EXTEND_RRSET, PRUNE_RRSET, DISABLE or ENABLE`,
          },
        ]);
        return undefined;
    }
  }
}
