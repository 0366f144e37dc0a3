import type { Settings } from '../../config/settings';
import type { Sql } from '../../db/pool';
import type { JournalRecord } from '../../entities/change.entity';
import { CanonicalRecord, recordIdentity } from '../../dns/record';
import { ownersToCheck } from '../../dns/zone-checks';
import { checkZoneIndexed } from '../../dns/zone-rules';
import { DomainError, ErrorDetail, errorFromProblems } from '../../errors/catalogue';
import { allowedTtlsOf, type RequestContext } from '../context';
import { normaliseZoneName } from '../../dns/zone-name';
import { applyChangePlan, dryRunChangePlan, journalRecord, type WriteEngine, type ZoneChange } from '../write-engine';
import { decide, isRestricted } from '../../auth/policy';
import { journalCommentChange, replaceRrsetComments, type RrsetComments } from '../../repositories/rrset-comments';
import { RrsetCommentsService, textComment, type RrsetCommentsInput } from './rrset-comments.service';
import type { JournalCommentChange } from '../../entities/change.entity';
import { changeAuthor } from '../../auth/principal';
import { disabledOfZone } from '../../repositories/disabled-records';
import { countRecordsOfZone, guardsOfZone } from '../../repositories/protected-rrsets';
import { parentNsOf } from '../../repositories/health';
import { analyticsReported, rrsetUse } from '../../repositories/query-analytics';
import { inUseFindings, inUseWindowMs, refusesUnforced, removedRrsets } from './in-use-guard';
import type { ChangePlan } from '../write-engine/plan';
import {
  disabledRecordsRead,
  mayChangeApexNs,
  NO_DISABLED,
  type PlanGuards,
  planChangeSet,
  plannedRrsets,
  refusedByPolicy,
  safetyRefusal,
  type ZoneAsRead,
} from './change-plan';
import { type ParsedChange, parseZoneChange, parseZoneChanges } from './change-parse';
import type { PlannedChanges, PlanView, ZoneChangeOptions, ZoneChangesOutcome, ZoneChangesResult, ZoneChangeSpec } from './zone-change-set';

export type {
  PlannedChanges,
  PlanView,
  ZoneChangeKind,
  ZoneChangeOptions,
  ZoneChangesOutcome,
  ZoneChangesResult,
  ZoneChangeSpec,
} from './zone-change-set';

/** a plan as a dry run answers it: the records it would add and remove, each RRset before and after, its warnings */
function outcomeOf(zone: ZoneAsRead, plan: ChangePlan, serial: number): ZoneChangesResult {
  return {
    zone: plan.zone,
    serialBefore: plan.serialBefore,
    serial,
    added: plan.insertions.map(({ record }) => journalRecord(record)),
    removed: plan.removals.map(({ row }) => journalRecord(row)),
    rrsets: plannedRrsets(zone, plan).map((rrset) => ({
      owner: rrset.owner,
      type: rrset.type,
      before: rrset.before.map(journalRecord),
      after: rrset.after.map(journalRecord),
    })),
    disabledAdded: plan.disabled.added.map(journalRecord),
    disabledRemoved: plan.disabled.removed.map(journalRecord),
    warnings: plan.warnings,
  };
}

/** a change request's apply (`ZoneChangesService.apply`'s `reviewed`) */
export interface ReviewedApply {
  /** in the zone's turn, holding its row's lock, before the set is planned: a refusal here writes nothing */
  onZone?: (sql: Sql) => Promise<void>;
  /** after the change's write, in its transaction: the request's outcome, all or nothing */
  alongside: (sql: Sql, outcome: ZoneChangesOutcome) => Promise<void>;
}

/** a person's write of one record, as `applyOne` runs it (see there) */
interface OneRecordWrite {
  precheck: (change: ZoneChange) => void;
  recordId?: number;
  editInPlace?: number;
  /** the ids of the rows the write inserted, once written */
  inserted: number[];
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
  private readonly comments: RrsetCommentsService;

  constructor(
    private readonly settings: Settings,
    /** the write engine every change of a zone goes through (services/index.ts) */
    private readonly engine: WriteEngine,
  ) {
    this.comments = new RrsetCommentsService(settings);
  }

  /**
   * `comments`: RRsets whose comments become those given (docs/powerdns-api.md), beside those the changes give as
   * one text (`comment`, a COMMENT change: docs/changes.md, «Comments»), written in the set's transaction and kept
   * in its journal row; a set of comments alone changes no record and steps no serial, and its journal row is one
   * of its own (`comment-changed`).
   */
  async apply(
    ctx: RequestContext,
    input: {
      zone: string;
      changes: ZoneChangeSpec[];
      expectSerial?: number;
      comments?: readonly RrsetCommentsInput[];
      dryRun?: boolean;
      /**
       * the safety threshold (docs/changes.md): `false` refuses a set that deletes or replaces more than 30 % of a
       * zone of 10 records or more, or changes the apex NS, with CHANGE_NEEDS_FORCE; `true` forces it; absent,
       * no threshold (the PowerDNS API, a revert: PowerDNS's behaviour)
       */
      force?: boolean;
      /**
       * a change request applied (change-requests.service.ts): it passes a zone's review; `onZone` is asked first,
       * in the zone's turn holding its row's lock (a refusal there writes nothing), and `alongside` writes its
       * outcome in the transaction of the change, all or nothing
       */
      reviewed?: ReviewedApply;
    },
    options: ZoneChangeOptions = {},
  ): Promise<ZoneChangesOutcome> {
    const zone = normaliseZoneName(input.zone);
    const given = input.comments ?? [];
    if (input.changes.length === 0 && given.length === 0)
      throw DomainError.invalid('changes', 'changes: a change set needs at least one change', 'EMPTY_CHANGE_SET');
    this.checkSize(input.changes.length + given.length);
    // what can be decided without the zone: every record's own validity; its problems are reported with the
    // ones the zone's rules find in the valid changes (every problem of the set at once), after the zone is
    // read, so a zone the caller cannot see is ZONE_NOT_FOUND whatever the changes hold
    const ofChanges = commentsOfChanges(input.changes);
    const { sets: comments, problems: commentProblems } = this.comments.check(zone, [...given, ...ofChanges.comments]);
    const invalid: ErrorDetail[] = [...ofChanges.problems, ...commentProblems];
    const readingWarnings: ErrorDetail[] = [];
    const parsed = input.changes.map((change, index) =>
      parseZoneChange(zone, change, index, invalid, allowedTtlsOf(ctx, this.settings), options, readingWarnings),
    );
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
        dryRun: input.dryRun,
        force: input.force,
        touching: { owners, recordIds },
        comments,
        soa: options.soa,
        reviewed: input.reviewed,
      },
      () => ({ parsed, invalid }),
    );
    // what reading the records' text changed (a long TXT split, a name outside the host-name rule), beside the
    // zone checks' warnings, as a single record's write says it
    ctx.warnings?.push(...readingWarnings);
    // a dry run answers its warnings in its plan too, the reading's first (as a write's are in `ctx.warnings`)
    if (result.dryRun) return { ...result, warnings: [...readingWarnings, ...(result.warnings ?? [])] };
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
    const parsed = changes.map((change, index) =>
      parseZoneChange(zone, { ...change, kind: 'ADD' }, index, invalid, allowedTtlsOf(ctx, this.settings), options),
    );
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
  ): Promise<ZoneChangesOutcome> {
    const zone = normaliseZoneName(input.zone);
    return this.run(ctx, zone, { touching: { owners: input.owners, recordIds: [] } }, (view) => {
      const planned = input.plan(view);
      if ('changes' in planned) {
        this.checkSize(planned.changes.length);
        return { parsed: parseZoneChanges(zone, planned.changes, allowedTtlsOf(ctx, this.settings)), soa: planned.soa };
      }
      // records the plan has read: a DNS UPDATE's RRs were read a second time here
      this.checkSize(planned.removedIds.length + planned.additions.length);
      const parsed: ParsedChange[] = planned.removedIds.map((id) => ({ kind: 'REMOVE', id, records: [] }));
      for (const record of planned.additions) parsed.push({ kind: 'ADD', id: undefined, records: [record] });
      return { parsed, soa: planned.soa };
    });
  }

  /**
   * A person's write of one record (RecordsService: create, edit, delete): a set of one change, planned and applied
   * as every set is (the key's policy, the zone rules, the guards, the zone checks, the "in use" guard), so that no
   * edge takes what another refuses. What the record API refuses in its own words (a record not there, another zone,
   * the SOA's serial) `precheck` refuses first, on the zone as read. A record edited keeps its id; an SOA edited is
   * the zone's SOA, its serial the caller's (it must rise). The safety threshold is a set's: a record's write has no
   * force to give, so none applies, and a finding that would refuse only unforced (RRSET_IN_USE) is a warning here.
   */
  async applyOne(
    ctx: RequestContext,
    input: {
      zone: string;
      /** the change, made once `precheck` has seen the zone (undefined: none but the SOA's) */
      change: () => ParsedChange | undefined;
      /** the apex SOA an edit of it gives, its serial the caller's (undefined: none) */
      soa: () => CanonicalRecord | undefined;
      owners: string[];
      comment?: RrsetComments;
      precheck: (change: ZoneChange) => void;
      /** the record an edit or deletion names: the zone is read through it, with the whole of its owner */
      recordId?: number;
      editInPlace?: number;
    },
  ): Promise<ZoneChangesOutcome & { insertedIds: number[] }> {
    const one: OneRecordWrite = { precheck: input.precheck, recordId: input.recordId, editInPlace: input.editInPlace, inserted: [] };
    const outcome = await this.run(
      ctx,
      input.zone,
      {
        touching: { owners: input.owners, recordIds: input.recordId !== undefined ? [input.recordId] : [] },
        comments: input.comment ? [input.comment] : [],
        one,
      },
      () => {
        const change = input.change();
        return { parsed: change ? [change] : [], soa: input.soa() };
      },
    );
    return { ...outcome, insertedIds: one.inserted };
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

  private run(
    ctx: RequestContext,
    zone: string,
    options: {
      expectSerial?: number;
      dryRun?: boolean;
      force?: boolean;
      touching: { owners: string[]; recordIds: number[] };
      comments?: readonly RrsetComments[];
      soa?: ZoneChangeOptions['soa'];
      reviewed?: ReviewedApply;
      /** a person's write of one record (`applyOne`) */
      one?: OneRecordWrite;
    },
    prepare: (view: PlanView) => { parsed: (ParsedChange | undefined)[]; invalid?: ErrorDetail[]; soa?: CanonicalRecord },
  ): Promise<ZoneChangesOutcome> {
    // the records the set touches and the apex (the rules are per owner, plus the apex's SOA and NS); a record's
    // edit or deletion reads the whole owner of the record it names by id as well
    const one = options.one;
    const touching = {
      owners: [...new Set(['@', ...options.touching.owners])],
      recordIds: [...new Set(options.touching.recordIds)],
      ...(one?.recordId !== undefined ? { ownersOfIds: true } : {}),
    };
    const comments = options.comments ?? [];
    // a zone under review takes a dry run, and a change request's apply (staging.ts `review`)
    const review = options.dryRun ? ('plan' as const) : options.reviewed ? ('approved' as const) : undefined;
    // a record's edit or deletion names its zone by the record (its zone's name is checked against it: `precheck`)
    const request =
      one?.recordId !== undefined
        ? { zone: { recordId: one.recordId }, targetId: one.recordId, touching, review }
        : { zone: { name: zone }, touching, review };
    return this.engine.changeZone(ctx.db, this.settings, ctx.principal, request, async (change) => {
      one?.precheck(change);
      // comments are written beside the records, in the transaction holding the zone row's lock (all or nothing),
      // and what they change is read there (no other change of the zone's comments runs meanwhile)
      let commentChanges: JournalCommentChange[] = [];
      if (comments.length) {
        change.requireLock();
        this.comments.requireWritable(change.zone.name, ctx.principal.policy, comments);
        commentChanges = await this.comments.changesOf(change.connection, change.zone.id, comments);
      }
      if (options.reviewed && !options.dryRun) {
        change.requireLock();
        await options.reviewed.onZone?.(change.connection);
      }
      const decided = await this.decideRecords(ctx, change.zone.name, options, prepare, change, commentChanges);
      const result = commentChanges.length ? { ...decided, comments: commentChanges } : decided;
      if (comments.length && !options.dryRun) {
        await replaceRrsetComments(change.connection, change.zone.id, comments);
        // comments alone: no serial step, and a journal row of their own (the history, the event)
        if (change.serialAfter === undefined && commentChanges.length)
          await journalCommentChange(change.connection, {
            domainId: change.zone.id,
            zone: change.zone.name,
            serial: change.zone.serial,
            comments: commentChanges,
            author: changeAuthor(ctx.principal),
          });
        if (commentChanges.length) result.changed = true;
      }
      if (options.reviewed && !options.dryRun) await options.reviewed.alongside(change.connection, result);
      return result;
    });
  }

  /**
   * A change set on the zone as read (see `run`): the disabled records it meets read, the set planned
   * (change-plan.ts, pure), and the plan applied by the write engine, or, on a dry run, shown and not written
   */
  private async decideRecords(
    ctx: RequestContext,
    zone: string,
    options: { expectSerial?: number; soa?: ZoneChangeOptions['soa']; dryRun?: boolean; force?: boolean; one?: OneRecordWrite },
    prepare: (view: PlanView) => { parsed: (ParsedChange | undefined)[]; invalid?: ErrorDetail[]; soa?: CanonicalRecord },
    change: ZoneChange,
    /** the RRsets' comments the set changes, kept with its journal row when it steps the serial */
    comments: readonly JournalCommentChange[],
  ): Promise<ZoneChangesOutcome> {
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
    // planned afresh on every attempt (changeZone may decide again on a zone that moved meanwhile)
    const current = change.zone.sameOwner;
    const { parsed, invalid, soa } = prepare({ name: zone, serial: change.zone.serial, records: current });
    const disabled = await this.disabledTouched(change, parsed);
    const zoneAsRead: ZoneAsRead = { name: zone, serial: change.zone.serial, soa: change.zone.soa, records: current, disabled };
    // the locked and steered RRsets and strictChecks, read in the same attempt as the records (one statement), for
    // a zone read with some of them; a change decided on the zone's head has none, and its write proves it
    const guarded = !change.decidedOnHead && (change.zone.hasLocks || change.zone.strictChecks || change.zone.hasSteered);
    let guards: PlanGuards | undefined = guarded ? await guardsOfZone(change.connection, change.zone.id) : undefined;
    // a set that may change the apex NS is compared with what the parent lists, as the health checker last saw
    // it (a stored row: planning asks no server)
    if (mayChangeApexNs(parsed, current)) {
      const parentNs = await parentNsOf(change.connection, change.zone.id);
      if (parentNs) guards = { ...guards, parentNs };
    }
    const planned = planChangeSet(zoneAsRead, parsed, {
      keyPolicy: ctx.principal.policy,
      soa: options.soa,
      invalid,
      soaRecord: soa,
      guards,
      editInPlace: options.one?.editInPlace,
    });
    if ('refusal' in planned) throw planned.refusal;
    const plan = await this.guardInUse(change, zoneAsRead, planned.plan, options.force);
    // the safety threshold, where the edge can say force: the zone's size is counted only for a plan that
    // removes enough to pass it (more than 30 % of 10 records is 4 at least)
    if (options.force === false) {
      const size = plan.removals.length >= 4 ? await countRecordsOfZone(change.connection, change.zone.id) : 0;
      const refused = safetyRefusal(plan, size);
      if (refused) throw refused;
    }
    const serialBefore = change.zone.serial;
    if (options.dryRun) {
      const { serial } = await dryRunChangePlan(change, plan, this.settings);
      return { ...outcomeOf(zoneAsRead, plan, serial), changed: false, dryRun: true };
    }
    const { changed, insertedIds } = await applyChangePlan(change, plan, { settings: this.settings, principal: ctx.principal, comments });
    if (change.serialAfter === undefined)
      return { zone, serialBefore, serial: serialBefore, added: [], removed: [], changed, dryRun: false };
    if (options.one) options.one.inserted = insertedIds;
    // a record's write warns as it always has: each warning's field, code and message
    ctx.warnings?.push(...(options.one ? plan.warnings.map(({ field, code, message }) => ({ field, code, message })) : plan.warnings));
    const visible = (records: JournalRecord[]) => records.filter((r) => r.type !== 'SOA');
    return {
      zone,
      serialBefore,
      serial: change.serialAfter,
      added: visible(change.added),
      removed: visible(change.removed),
      changed,
      dryRun: false,
    };
  }

  /** whether a collector has reported, known true for good once read so, read again at most every 10 s while not */
  private analyticsSeen: { reported: boolean; at: number } = { reported: false, at: -Infinity };

  /**
   * The "in use" guard (in-use-guard.ts, docs/analytics.md): the traffic of the RRsets the plan removes from, read
   * in one statement, and only where some collector has reported (a write on a service without query analytics
   * reads nothing more). Its findings are the plan's warnings (kept in the journal); on a zone with strictChecks
   * an RRset in use refuses the plan where the edge can say force and did not (CHANGE_NEEDS_FORCE), as the
   * safety threshold does.
   */
  private async guardInUse(change: ZoneChange, zone: ZoneAsRead, plan: ChangePlan, force: boolean | undefined): Promise<ChangePlan> {
    const sets = removedRrsets(zone, plan);
    if (!sets.length) return plan;
    const now = Date.now();
    if (!this.analyticsSeen.reported && now - this.analyticsSeen.at > 10_000)
      this.analyticsSeen = { reported: await analyticsReported(change.connection), at: now };
    if (!this.analyticsSeen.reported) return plan;
    const { inUseDays, flushMs } = this.settings.analytics;
    const since = new Date(now - Math.max(...sets.map((set) => inUseWindowMs(set, inUseDays))));
    const use = await rrsetUse(
      change.connection,
      change.zone.id,
      { rrsets: sets, delegations: sets.filter((set) => set.delegation && set.deleted).map((set) => set.owner) },
      // the minute the collector has not written yet, and a flush late: no gap
      { since, now: new Date(now), slackMs: 60_000 + 2 * flushMs },
    );
    const findings = inUseFindings(zone.name, sets, use, new Date(now), inUseDays);
    if (!findings.length) return plan;
    const refusing = findings.filter(refusesUnforced);
    if (refusing.length && change.zone.strictChecks && force === false)
      throw errorFromProblems(
        refusing.map((f) => ({ ...f, message: `${f.message}; the zone has strictChecks: send it again with force` })),
      );
    return { ...plan, warnings: [...plan.warnings, ...findings] };
  }

  /**
   * The disabled records at the owners a set names (DISABLE by id: the record's owner), by identity and by
   * RRset. A set that names disabled records, or meets some, is decided in the transaction holding the zone
   * row's lock: what is kept disabled changes beside the served records, all or nothing.
   */
  private async disabledTouched(change: ZoneChange, parsed: (ParsedChange | undefined)[]) {
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
    return disabledRecordsRead(rows);
  }
}

/**
 * The comments a set's changes give as one text (`comment`, docs/changes.md «Comments»): each the comment of the
 * RRset its change names by owner and type (a COMMENT change gives nothing else), named `changes[i].comment`. A
 * change that names no RRset (by id alone) cannot carry one: COMMENT_NEEDS_RRSET.
 */
function commentsOfChanges(changes: readonly ZoneChangeSpec[]): { comments: RrsetCommentsInput[]; problems: ErrorDetail[] } {
  const comments: RrsetCommentsInput[] = [];
  const problems: ErrorDetail[] = [];
  changes.forEach((change, index) => {
    const at = `changes[${index}]`;
    if (change.comment === undefined || change.comment === null) return;
    if (change.owner === undefined || change.owner === null || change.type === undefined || change.type === null) {
      // a COMMENT change's missing owner or type is its parse's REQUIRED problem
      if (change.kind !== 'COMMENT')
        problems.push({
          field: `${at}.comment`,
          code: 'COMMENT_NEEDS_RRSET',
          message: `${at}.comment: a comment is its RRset's; give the change's owner and type (a change by id alone names none)`,
        });
      return;
    }
    comments.push(
      textComment(change.owner, change.type, change.comment, { field: `${at}.comment`, at, nameReadElsewhere: change.kind !== 'COMMENT' }),
    );
  });
  return { comments, problems };
}
