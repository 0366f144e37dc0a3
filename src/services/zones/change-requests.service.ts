import type { Database, Sql } from '../../db/pool';
import type { Principal } from '../../auth/principal';
import { isOperator } from '../../auth/principal';
import { isRestricted, readsRecord, UNRESTRICTED, writesSomewhere, type PolicyRule } from '../../auth/policy';
import { DomainError } from '../../errors/catalogue';
import { appendEvent, type EventType } from '../../repositories/events';
import {
  type ChangeRequestAuthor,
  changeRequestById,
  changeRequestsOfZone,
  type ChangeRequestRow,
  type ChangeRequestStatus,
  type ChangeReviewRow,
  claimDueChangeRequests,
  insertChangeRequest,
  insertReview,
  moveChangeRequest,
  reviewsOf,
  servedRrsets,
  zoneReview,
} from '../../repositories/change-requests';
import { inTransaction } from '../db-errors';
import { setRequiredApprovals } from '../../repositories/protected-rrsets';
import { recordZoneRuleChange } from './protected-rrsets.service';
import type { JournalRecord } from '../../entities/change.entity';
import { withSerial } from '../../dns/zone-rules';
import type { RequestContext } from '../context';
import type { DomainsService } from './domains.service';
import type { ZoneChangeOptions, ZoneChangesResult, ZoneChangeSpec } from './zone-change-set';
import type { ZoneChangesService } from './zone-changes.service';
import type { ImportInput, ImportResult, ZoneFilesService } from './zone-files.service';

/** the most approvals a zone may require */
export const MAX_REQUIRED_APPROVALS = 10;
/** how long a process holds a request it applies before another may take it up (it died meanwhile) */
const CLAIM_SECONDS = 60;
/** how many times a request's plan is read again when the zone moved between its dry run and the read of its RRsets */
const APPLY_ATTEMPTS = 5;
/** the most due requests the scheduled changes' duty claims and applies together in one pass (it passes again at once when full) */
export const DUE_PER_PASS = 20;

/** the roles whose people review a zone's changes: those who may write its records themselves (src/auth/roles.ts) */
const REVIEWING_ROLES = new Set(['owner', 'admin', 'editor']);

type RrsetKey = { owner: string; type: string };
type PlannedRrset = RrsetKey & { before: { owner: string; type: string; rdata: string; ttl: number }[] };

export interface ChangeRequestView extends Omit<ChangeRequestRow, 'author' | 'plan' | 'changes' | 'userId'> {
  /** who proposed it, as the history names an author: the key's name, or the person's e-mail address */
  author: string;
  authorPersonId: number | null;
  plan: ZoneChangesResult;
  changes: ZoneChangeSpec[];
  approvals: number;
  reviews: ChangeReviewRow[];
}

/** what a write that became a change request answers of it: the whole is Query.changeRequest */
export interface ProposedChange {
  id: number;
  status: string;
  requiredApprovals: number;
}

/** a write refused because its zone requires approvals (the write engine's ZONE_UNDER_REVIEW) */
const isUnderReview = (error: unknown): error is DomainError => error instanceof DomainError && error.code === 'ZONE_UNDER_REVIEW';

/** a write's change as a change set says it: what a zone under review is asked to approve instead */
export interface ChangeProposal {
  zone: string;
  changes: ZoneChangeSpec[];
  expectSerial?: number;
  options?: ZoneChangeOptions;
}

/** what became of a person's write: written (the write's own answer), or proposed as a change request, nothing written */
export type WriteOutcome<T> = { outcome: 'written'; written: T } | { outcome: 'proposed'; changeRequest: ChangeRequestView };

/**
 * Whether the edge a write came through answers a change request: `true`. Otherwise the zone's refusal is the
 * answer (ZONE_UNDER_REVIEW), with the words given added to its message: how this edge proposes the change, or
 * why this write cannot be proposed.
 */
export type ProposalAcceptance = true | { refusal?: string };

/** what a write that became a change request answers of it, as GraphQL's ProposedZoneChange */
export const proposedOf = (request: Pick<ChangeRequestView, 'id' | 'status' | 'requiredApprovals'>): ProposedChange => ({
  id: request.id,
  status: request.status.toUpperCase(),
  requiredApprovals: request.requiredApprovals,
});

/** the zone's refusal, with what the edge adds to it (how it proposes, or why it cannot) */
function refusalAt(refusal: DomainError, words: string | undefined): DomainError {
  if (!words) return refusal;
  const message = `${refusal.message}; ${words}`;
  return new DomainError(
    refusal.code,
    message,
    refusal.details.map((detail) => (detail.code === refusal.code ? { ...detail, message } : detail)),
  );
}

/** the plan as a request keeps it: a dry run's answer, the RRsets it was planned on, how its changes are read */
type KeptPlan = ZoneChangesResult & { basis?: PlannedRrset[]; options?: ZoneChangeOptions };

/**
 * Whether a principal reviews the changes of a zone (undefined: it may, the reason's code otherwise): a person
 * signed in (a key reviews nothing: an approval is a person's word), an operator, or a member of the zone's
 * account acting there whose role writes the zone (owner, admin, an editor of it). What the console offers
 * (Domain.permissions.reviewChanges) is this answer.
 */
export function reviewRefusal(
  principal: Principal,
  zone: { userId: number; name: string },
): 'NOT_SIGNED_IN' | 'NOT_AN_APPROVER' | undefined {
  const person = principal.via === 'session' ? principal.person : undefined;
  if (!person) return 'NOT_SIGNED_IN';
  if (person.operator) return undefined;
  const member =
    principal.kind === 'user' &&
    principal.userId === zone.userId &&
    person.role !== null &&
    REVIEWING_ROLES.has(person.role) &&
    writesSomewhere(principal.policy, zone.name);
  return member ? undefined : 'NOT_AN_APPROVER';
}

const rrsetKey = (rrset: RrsetKey) => `${rrset.owner}\u0000${rrset.type}`;
const recordKey = (r: { rdata: string; ttl: number }) => `${r.ttl} ${r.rdata}`;

/**
 * The RRsets a request's plan changes whose served records are no longer those it was planned on: each is a
 * conflict (docs/changes.md, «Review»). Records elsewhere in the zone may have moved meanwhile: the request is
 * planned again on them, as any change is.
 */
export function conflictsOf(
  planned: readonly PlannedRrset[],
  served: readonly { owner: string; type: string; rdata: string; ttl: number }[],
) {
  const now = new Map<string, string[]>();
  for (const record of served) {
    const key = rrsetKey(record);
    now.set(key, [...(now.get(key) ?? []), recordKey(record)]);
  }
  const conflicts: RrsetKey[] = [];
  for (const rrset of planned) {
    const before = rrset.before.map(recordKey).sort();
    const current = (now.get(rrsetKey(rrset)) ?? []).sort();
    if (before.length !== current.length || before.some((r, i) => r !== current[i]))
      conflicts.push({ owner: rrset.owner, type: rrset.type });
  }
  return conflicts;
}

/**
 * Review and scheduled changes (docs/changes.md): a change set proposed as a change request, planned on the zone
 * as it was (the plan kept, as a dry run shows it), reviewed by people of the zone's account whose role may write
 * the zone, and applied through the write engine on its last approval or at its time: planned again on the zone
 * as it is then, or refused with the RRsets that moved since it was planned named. Every step is an event of the
 * one feed, written in the step's transaction (the apply's in the zone change's own).
 */
export class ChangeRequestsService {
  constructor(
    private readonly domains: DomainsService,
    private readonly zoneChanges: ZoneChangesService,
    private readonly zoneFiles: ZoneFilesService,
  ) {}

  /**
   * The one place a person's write meets a zone under review (docs/changes.md, «Review»): `write` is tried; if
   * the zone requires approvals (the write engine refuses it, ZONE_UNDER_REVIEW, having written nothing), the
   * same change as a change set (`proposal`, asked only then) is proposed as a change request, and the answer is
   * that request, nothing written. Where the edge cannot answer a request (`accepts`, asked only then: a REST
   * path's legacy client that did not prefer respond-async, a PowerDNS key without the scope to propose), the
   * refusal stays the answer, with the edge's words. A proposal that comes to nothing (`{ unchanged }`: an import
   * of what the zone holds already) is answered as a write that changed nothing. Every other error is the write's.
   */
  async writeOrPropose<T>(
    ctx: RequestContext,
    input: {
      write: () => Promise<T>;
      proposal: () => ChangeProposal | { unchanged: T } | Promise<ChangeProposal | { unchanged: T }>;
      accepts?: ProposalAcceptance | (() => Promise<ProposalAcceptance>);
    },
  ): Promise<WriteOutcome<T>> {
    try {
      return { outcome: 'written', written: await input.write() };
    } catch (error) {
      if (!isUnderReview(error)) throw error;
      const accepts = typeof input.accepts === 'function' ? await input.accepts() : (input.accepts ?? true);
      if (accepts !== true) throw refusalAt(error, accepts.refusal);
      const proposal = await input.proposal();
      if ('unchanged' in proposal) return { outcome: 'written', written: proposal.unchanged };
      return { outcome: 'proposed', changeRequest: await this.propose(ctx, proposal) };
    }
  }

  /**
   * A change set from a person's edge (GraphQL's applyZoneChanges and revertZone, REST's changes, the CLI, the
   * console): written, or, on a zone under review, proposed as a change request and answered with it, nothing
   * written (`serial` = `serialBefore`). A dry run is a dry run either way.
   */
  async applyOrPropose(
    ctx: RequestContext,
    input: { zone: string; changes: ZoneChangeSpec[]; expectSerial?: number; dryRun?: boolean; force?: boolean },
  ): Promise<ZoneChangesResult & { changeRequest?: ProposedChange }> {
    const outcome = await this.writeOrPropose(ctx, {
      write: async () => {
        const { changed: _changed, ...result } = await this.zoneChanges.apply(ctx, input);
        return result;
      },
      proposal: () => ({ zone: input.zone, changes: input.changes, expectSerial: input.expectSerial }),
      // a dry run proposes nothing: it is a dry run either way
      accepts: input.dryRun ? {} : true,
    });
    if (outcome.outcome === 'written') return outcome.written;
    const request = outcome.changeRequest;
    return {
      zone: request.zone,
      serialBefore: request.plannedSerial,
      serial: request.plannedSerial,
      added: [],
      removed: [],
      dryRun: false,
      changeRequest: proposedOf(request),
    };
  }

  /**
   * A zone file's import (GraphQL, REST, the CLI, the console): written, or, on a zone under review, proposed as
   * a change request of the RRsets it changes (ZoneFilesService.importChanges) and answered with it: nothing
   * added or removed, the zone's serial, the file's warnings.
   */
  async importOrPropose(ctx: RequestContext, input: ImportInput): Promise<ImportResult & { changeRequest?: ProposedChange }> {
    let planned: Awaited<ReturnType<ZoneFilesService['importChanges']>> | undefined;
    const outcome = await this.writeOrPropose<ImportResult>(ctx, {
      write: () => this.zoneFiles.import(ctx, input),
      proposal: async () => {
        planned = await this.zoneFiles.importChanges(ctx, input);
        if (planned.changes.length) return { zone: planned.zone, changes: planned.changes, options: planned.options };
        const serial = await this.serialOf(ctx, planned.zone);
        return { unchanged: { zone: planned.zone, added: 0, removed: 0, serial, dryRun: false, ...keep(planned) } };
      },
      // a dry run proposes nothing: it is a dry run either way
      accepts: input.dryRun ? {} : true,
    });
    if (outcome.outcome === 'written') return outcome.written;
    const request = outcome.changeRequest;
    return {
      zone: request.zone,
      added: 0,
      removed: 0,
      serial: request.plannedSerial,
      dryRun: false,
      ...keep(planned!),
      changeRequest: proposedOf(request),
    };
  }

  private async serialOf(ctx: RequestContext, zone: string): Promise<number> {
    return (await this.domains.get(ctx, { name: zone })).serial;
  }

  /** sets the approvals a change of the zone needs (0: none): the zone's owner or an admin of its account */
  async setRequiredApprovals(ctx: RequestContext, zoneName: string, approvals: number): Promise<number> {
    if (!Number.isInteger(approvals) || approvals < 0 || approvals > MAX_REQUIRED_APPROVALS)
      throw DomainError.invalid('approvals', `approvals: from 0 to ${MAX_REQUIRED_APPROVALS}`, 'OUT_OF_RANGE');
    const zone = await this.domains.get(ctx, { name: zoneName });
    const p = ctx.principal;
    const may =
      isOperator(p) ||
      (p.kind === 'user' && (p.via === 'session' ? ['owner', 'admin'].includes(p.person?.role ?? '') : !isRestricted(p.policy)));
    if (!may)
      throw new DomainError('FORBIDDEN_BY_ROLE', "Only the zone's owner or an admin of its account sets the approvals its changes need");
    // a rule of the zone, not a change of its records: audited and told with the zone's serial, and a write that
    // read the zone before it is decided again (repositories/protected-rrsets.ts)
    await inTransaction(ctx.db, async (sql) => {
      const set = await setRequiredApprovals(sql, zone.id, approvals);
      if (!set) throw DomainError.notFound('ZONE_NOT_FOUND', 'zone');
      if (set.before !== approvals)
        await recordZoneRuleChange(
          sql,
          p,
          { id: zone.id, name: zone.name, serial: set.serial },
          {
            rule: 'requiredApprovals',
            before: set.before,
            after: approvals,
          },
        );
    });
    return approvals;
  }

  async requiredApprovals(db: Database, domainId: number): Promise<number> {
    return (await zoneReview(db, domainId))?.requiredApprovals ?? 0;
  }

  /**
   * Proposes a change set: planned now (a dry run, which refuses what a write would refuse), kept with its plan,
   * pending its approvals; without any to wait for (a zone that requires none), approved at once and applied now
   * or at `at`.
   */
  async propose(
    ctx: RequestContext,
    input: { zone: string; changes: ZoneChangeSpec[]; at?: Date | null; expectSerial?: number; options?: ZoneChangeOptions },
  ): Promise<ChangeRequestView> {
    const at = input.at ?? null;
    if (at && Number.isNaN(at.getTime())) throw DomainError.invalid('at', 'at: not a time', 'INVALID_TIME');
    const zone = await this.domains.get(ctx, { name: input.zone });
    const { plan, basis } = await this.planWithBasis(ctx, zone.id, { ...input, zone: zone.name });
    const required = await this.requiredApprovals(ctx.db, zone.id);
    const status: 'pending' | 'approved' = required > 0 ? 'pending' : 'approved';
    const now = !at || at.getTime() <= Date.now();
    const id = await inTransaction(ctx.db, async (sql) => {
      const id = await insertChangeRequest(sql, {
        domainId: zone.id,
        zone: zone.name,
        author: authorOf(ctx.principal),
        changes: input.changes,
        plannedSerial: plan.serialBefore,
        plan: { ...plan, basis, ...(input.options ? { options: input.options } : {}) } satisfies KeptPlan,
        requiredApprovals: required,
        status,
        scheduledAt: at,
      });
      await this.event(sql, 'change.proposed', zone.id, { id, author: ctx.principal.keyName ?? null, requiredApprovals: required, at });
      // approved with nothing to wait for: this process applies it now (the duty, if it dies first)
      if (status === 'approved' && now) await moveChangeRequest(sql, id, ['approved'], 'approved', { claimSeconds: CLAIM_SECONDS });
      return id;
    });
    if (status === 'approved' && now) await this.applyClaimed(ctx.db, id);
    return this.view(ctx, id);
  }

  /**
   * The set planned on the zone as it is (a dry run), and the whole of each RRset it changes as served at the
   * serial it was planned on: what its apply compares with (a dry run shows of an RRset named by a record's id
   * only that record). Read again when the zone moved between the two reads.
   */
  private async planWithBasis(
    ctx: RequestContext,
    domainId: number,
    input: { zone: string; changes: ZoneChangeSpec[]; expectSerial?: number; options?: ZoneChangeOptions },
  ): Promise<{ plan: ZoneChangesResult; basis: PlannedRrset[] }> {
    const { options, ...set } = input;
    // an SOA given its fields (an import's): shown in the plan with the rest, though no conflict (its serial
    // moves with every change of the zone)
    const soa =
      options?.soa === 'fields'
        ? set.changes.find((c) => c.kind === 'REPLACE_RRSET' && c.owner === '@' && c.type?.toUpperCase() === 'SOA' && c.rdatas?.length)
        : undefined;
    for (let attempt = 0; ; attempt++) {
      const { changed: _changed, ...plan } = await this.zoneChanges.apply(ctx, { ...set, dryRun: true }, options);
      const rrsets = plan.rrsets ?? [];
      const served = await servedRrsets(ctx.db, domainId, soa ? [...rrsets, { owner: '@', type: 'SOA' }] : rrsets);
      if (!served) throw DomainError.notFound('ZONE_NOT_FOUND', 'zone');
      if (served.serial === plan.serialBefore || attempt === APPLY_ATTEMPTS - 1) {
        const basis = rrsets.map(({ owner, type }) => ({
          owner,
          type,
          before: served.records.filter((r) => r.owner === owner && r.type === type),
        }));
        if (!soa) return { plan, basis };
        const before = served.records.filter((r) => r.owner === '@' && r.type === 'SOA') as JournalRecord[];
        const after = {
          owner: '@',
          type: 'SOA',
          rdata: withSerial(soa.rdatas![0], plan.serial),
          ttl: soa.ttl ?? before[0]?.ttl,
        } as JournalRecord;
        return { plan: { ...plan, rrsets: [...rrsets, { owner: '@', type: 'SOA', before, after: [after] }] }, basis };
      }
    }
  }

  /** one request the caller may see (its zone's), with its plan and reviews */
  async get(ctx: RequestContext, id: number): Promise<ChangeRequestView> {
    return this.view(ctx, id);
  }

  async ofZone(
    ctx: RequestContext,
    zoneName: string,
    options: { statuses?: ChangeRequestStatus[]; first?: number },
  ): Promise<ChangeRequestView[]> {
    const zone = await this.domains.get(ctx, { name: zoneName });
    const rows = await changeRequestsOfZone(ctx.db, zone.id, { statuses: options.statuses, first: Math.min(options.first ?? 50, 500) });
    const reviews = await reviewsOf(
      ctx.db,
      rows.map((r) => r.id),
    );
    return rows.map((row) =>
      present(
        ctx.principal,
        row,
        reviews.filter((r) => r.requestId === row.id),
      ),
    );
  }

  /**
   * A review: an approval or a rejection with a comment, by a person of the zone's account whose role may write
   * the zone, never the request's author. A rejection closes the request; the last approval approves it, and it
   * is applied now (planned again on the zone as it is) or at its time.
   */
  async review(ctx: RequestContext, id: number, verdict: 'approve' | 'reject', comment: string | null): Promise<ChangeRequestView> {
    const request = await this.visible(ctx, id);
    const person = this.reviewer(ctx.principal, request);
    if (request.author.personId !== null && request.author.personId === person.id)
      throw new DomainError('CHANGE_SELF_APPROVAL', 'The author of a change request cannot review it: another person approves it', [
        { field: 'id', code: 'CHANGE_SELF_APPROVAL', message: 'id: this person proposed the change' },
      ]);
    const text = comment?.trim() ? comment.trim().slice(0, 2000) : null;
    const applyNow = await inTransaction(ctx.db, async (sql) => {
      const locked = await changeRequestById(sql, id, true);
      if (!locked || locked.status !== 'pending') throw closed(locked?.status);
      if (!(await insertReview(sql, { requestId: id, personId: person.id, reviewer: person.email, verdict, comment: text })))
        throw new DomainError('CHANGE_ALREADY_REVIEWED');
      if (verdict === 'reject') {
        await moveChangeRequest(sql, id, ['pending'], 'rejected');
        await this.event(sql, 'change.rejected', locked.domainId, { id, reviewer: person.email, comment: text });
        return false;
      }
      const approvals = (await reviewsOf(sql, [id])).filter((r) => r.verdict === 'approve').length;
      const last = approvals >= locked.requiredApprovals;
      await this.event(sql, 'change.approved', locked.domainId, {
        id,
        reviewer: person.email,
        comment: text,
        approvals,
        requiredApprovals: locked.requiredApprovals,
        approved: last,
      });
      if (!last) return false;
      const due = !locked.scheduledAt || locked.scheduledAt.getTime() <= Date.now();
      await moveChangeRequest(sql, id, ['pending'], 'approved', due ? { claimSeconds: CLAIM_SECONDS } : {});
      return due;
    });
    if (applyNow) await this.applyClaimed(ctx.db, id);
    return this.view(ctx, id);
  }

  /** cancels a request not applied yet (pending, or approved and waiting for its time): its author, or a reviewer */
  async cancel(ctx: RequestContext, id: number): Promise<ChangeRequestView> {
    const request = await this.visible(ctx, id);
    // the operator, the author, or a person who may review it
    if (!isOperator(ctx.principal) && !sameAuthor(ctx.principal, request.author)) this.reviewer(ctx.principal, request);
    await inTransaction(ctx.db, async (sql) => {
      // a request its process is applying right now is past cancelling (moveChangeRequest checks its lease)
      if (!(await moveChangeRequest(sql, id, ['pending', 'approved'], 'cancelled'))) {
        const now = await changeRequestById(sql, id);
        throw closed(now?.status === 'approved' ? 'applying' : now?.status);
      }
      await this.event(sql, 'change.cancelled', request.domainId, { id, by: ctx.principal.keyName ?? null });
    });
    return this.view(ctx, id);
  }

  /**
   * The scheduled changes' duty (worker/duties/): claims up to DUE_PER_PASS approved requests whose time has come
   * and applies them together, so that the last of many due at one time is served by its time plus the duty's
   * quarter second as the first is: requests that change one RRset (of one zone) one after another, in the order
   * they were claimed (their time, then their id), so that the later is planned again on what the earlier left
   * (or refused with the conflict); every other at once, a zone's in one transaction of its queue (the write
   * engine's batch). Answers how many it claimed; a failure (the database away) after all have run.
   */
  async applyDue(db: Database, limit = DUE_PER_PASS): Promise<number> {
    const claimed = await claimDueChangeRequests(db, limit, CLAIM_SECONDS);
    const before = new Map<string, Promise<unknown>>();
    const runs = claimed.map((request) => {
      const rrsets = request.rrsets.map((rrset) => `${request.domainId} ${rrset}`);
      const after = rrsets.flatMap((rrset) => before.get(rrset) ?? []);
      const run = Promise.allSettled(after).then(() => this.applyClaimed(db, request.id));
      for (const rrset of rrsets) before.set(rrset, run);
      return run;
    });
    const failed = (await Promise.allSettled(runs)).find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    return claimed.length;
  }

  /**
   * Applies a request this process claimed: in the zone's turn, holding its row's lock, the RRsets it was planned
   * on are read as the zone serves them; any that moved refuses it with them named (CHANGE_REQUEST_CONFLICT, nothing
   * written); otherwise its changes are planned again on the zone as it is and applied, as its author, the request's
   * status and event written in the change's transaction. A refusal of the write itself (the zone's rules on the
   * zone as it is now, the author's rules) refuses the request with its reason.
   */
  private async applyClaimed(db: Database, id: number): Promise<void> {
    const request = await changeRequestById(db, id);
    if (!request || request.status !== 'approved') return;
    const reviews = await reviewsOf(db, [id]);
    const approvers = reviews.filter((r) => r.verdict === 'approve').map((r) => r.reviewer);
    const ctx: RequestContext = { db, principal: principalOf(request.author, approvers) };
    const kept = request.plan as KeptPlan;
    const planned = kept.basis ?? [];
    try {
      await this.zoneChanges.apply(
        ctx,
        {
          zone: request.zone,
          changes: request.changes as ZoneChangeSpec[],
          reviewed: {
            onZone: async (sql) => {
              const now = await servedRrsets(sql, request.domainId, planned);
              const conflicts = now ? conflictsOf(planned, now.records) : [];
              if (conflicts.length) throw conflictError(request, conflicts);
            },
            alongside: async (sql, outcome) => {
              if (!(await moveChangeRequest(sql, id, ['approved'], 'applied', { appliedSerial: outcome.serial }))) throw closed('applied');
              await this.event(sql, 'change.applied', request.domainId, {
                id,
                author: request.author.keyName,
                approvedBy: approvers,
                serial: outcome.serial,
              });
            },
          },
        },
        kept.options,
      );
    } catch (error) {
      if (!(error instanceof DomainError)) throw error; // the database away: the claim lapses and the duty takes it up again
      if (error.code === 'CHANGE_REQUEST_CLOSED') return;
      if (error.code === 'CHANGE_REQUEST_CONFLICT') {
        const conflicts = error.details.map(({ owner, type }) => ({ owner: owner!, type: type! }));
        await this.refuse(db, request, error.message, conflicts);
        return;
      }
      const problems = error.details.map((d) => d.message).filter((m) => m && m !== error.message);
      await this.refuse(db, request, problems.length ? `${error.message}: ${problems.join('; ')}` : error.message, []);
    }
  }

  private async refuse(db: Database, request: ChangeRequestRow, reason: string, conflicts: RrsetKey[]): Promise<void> {
    await inTransaction(db, async (sql) => {
      if (!(await moveChangeRequest(sql, request.id, ['approved'], 'refused', { reason, conflicts }))) return;
      await this.event(sql, 'change.refused', request.domainId, { id: request.id, reason, conflicts });
    });
  }

  private event(sql: Sql, type: EventType, domainId: number, data: Record<string, unknown>): Promise<void> {
    return appendEvent(sql, { type, domainId, data });
  }

  /** a request whose zone the caller sees; another's is not found */
  private async visible(ctx: RequestContext, id: number): Promise<ChangeRequestRow> {
    const request = await changeRequestById(ctx.db, id);
    if (!request) throw DomainError.notFound('CHANGE_REQUEST_NOT_FOUND', 'id');
    try {
      await this.domains.get(ctx, { id: request.domainId });
    } catch (error) {
      if (error instanceof DomainError && error.code === 'ZONE_NOT_FOUND') throw DomainError.notFound('CHANGE_REQUEST_NOT_FOUND', 'id');
      throw error;
    }
    return request;
  }

  /**
   * The person reviewing: signed in (a key reviews nothing: an approval is a person's word), an operator, or a
   * member of the zone's account acting there whose role writes the zone (owner, admin, an editor of it).
   */
  private reviewer(principal: Principal, request: ChangeRequestRow): { id: number; email: string } {
    const refusal = reviewRefusal(principal, { userId: request.userId, name: request.zone });
    if (refusal === 'NOT_SIGNED_IN')
      throw new DomainError('NOT_SIGNED_IN', 'A change request is reviewed by a person signed in, not a key');
    if (refusal) throw new DomainError(refusal);
    return principal.person!;
  }

  private async view(ctx: RequestContext, id: number): Promise<ChangeRequestView> {
    const request = await this.visible(ctx, id);
    return present(ctx.principal, request, await reviewsOf(ctx.db, [id]));
  }
}

/** the RRsets a request was planned on that moved since, named: the request is refused with them */
function conflictError(request: ChangeRequestRow, conflicts: readonly RrsetKey[]): DomainError {
  const names = conflicts.map((c) => `${c.owner} ${c.type}`).join(', ');
  const message = `the zone moved at ${names} since the change was planned (serial ${request.plannedSerial})`;
  return new DomainError(
    'CHANGE_REQUEST_CONFLICT',
    message,
    conflicts.map(({ owner, type }) => ({ field: 'changes', code: 'CHANGE_REQUEST_CONFLICT', message, owner, type })),
  );
}

function closed(status: string | undefined): DomainError {
  const message = `The change request is ${status ?? 'gone'}: it is no longer open to this`;
  return new DomainError('CHANGE_REQUEST_CLOSED', message, [{ field: 'id', code: 'CHANGE_REQUEST_CLOSED', message }]);
}

/**
 * A request as the caller may see it: its plan's records only where the caller's rules let it read them (a key
 * confined to some names of a zone sees a request of that zone, not the records it changes elsewhere)
 */
function present(principal: Principal, row: ChangeRequestRow, reviews: ChangeReviewRow[]): ChangeRequestView {
  const { author, plan: kept, changes, userId: _userId, ...rest } = row;
  const { basis: _basis, options: _options, ...plan } = kept as KeptPlan;
  const readable = <T extends RrsetKey>(list: T[] | undefined) =>
    list?.filter((r) => readsRecord(principal.policy, row.zone, r.owner, r.type));
  return {
    ...rest,
    conflicts: rest.conflicts ? (readable(rest.conflicts) ?? []) : null,
    author: author.email ?? author.keyName ?? '',
    authorPersonId: author.personId,
    plan: {
      ...plan,
      added: readable(plan.added) ?? [],
      removed: readable(plan.removed) ?? [],
      rrsets: readable(plan.rrsets),
      disabledAdded: readable(plan.disabledAdded),
      disabledRemoved: readable(plan.disabledRemoved),
      // a finding names the RRset it is about: one the caller cannot read is not told of
      warnings: plan.warnings?.filter((w) => !w.owner || !w.type || readsRecord(principal.policy, row.zone, w.owner, w.type)),
    },
    changes: changes as ZoneChangeSpec[],
    approvals: reviews.filter((r) => r.verdict === 'approve').length,
    reviews,
  };
}

/** the author of a request as it is kept: who the history names, and the rules its apply acts with */
function authorOf(principal: Principal): ChangeRequestAuthor {
  const session = principal.via === 'session';
  return {
    keyId: session || principal.via === 'tsig' ? null : principal.keyId,
    tsigKeyId: principal.via === 'tsig' ? principal.keyId : null,
    keyName: principal.keyName ?? null,
    userId: principal.kind === 'user' ? principal.userId : null,
    personId: session ? (principal.person?.id ?? null) : null,
    email: session ? (principal.person?.email ?? null) : null,
    admin: principal.kind === 'admin',
    policy: isRestricted(principal.policy) ? { rules: principal.policy.rules } : null,
  };
}

function sameAuthor(principal: Principal, author: ChangeRequestAuthor): boolean {
  if (principal.via === 'session') return author.personId !== null && principal.person?.id === author.personId;
  if (principal.via === 'tsig') return author.tsigKeyId === principal.keyId;
  return author.keyId !== null && author.keyId === principal.keyId;
}

/**
 * The principal a request is applied as: its author, with the rules the author had when proposing (what the
 * dry run held it to), named in the history with the people who approved it.
 */
function principalOf(author: ChangeRequestAuthor, approvers: readonly string[]): Principal {
  const rules = (author.policy as { rules?: PolicyRule[] } | null)?.rules;
  const policy = rules ? { ...UNRESTRICTED, rules } : undefined;
  const name = author.email ?? author.keyName ?? 'change request';
  const keyName = approvers.length ? `${name} (approved by ${approvers.join(', ')})` : name;
  const person =
    author.personId !== null
      ? { id: author.personId, email: author.email ?? '', role: null, accountId: author.userId, operator: author.admin }
      : undefined;
  const via = person ? ('session' as const) : author.tsigKeyId !== null ? ('tsig' as const) : undefined;
  const keyId = author.tsigKeyId ?? author.keyId ?? 0;
  if (author.admin) return { kind: 'admin', keyId, keyName, via, policy, person };
  return { kind: 'user', keyId, keyName, userId: author.userId ?? 0, via, policy, person };
}

/** what an import proposed as a request still answers: the records it left out, its warnings */
const keep = (planned: Pick<ImportResult, 'dropped' | 'warnings' | 'commentsKept'>) => ({
  dropped: planned.dropped,
  commentsKept: planned.commentsKept,
  warnings: planned.warnings,
});
