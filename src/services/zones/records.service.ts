import type { Settings } from '../../config/settings';
import { scopeUserId } from '../../auth/principal';
import { readsRecord, requireAllowed, seesZone } from '../../auth/policy';
import { readRulesOf } from '../../auth/policy';
import { parseApiRecord, RecordInput, type CanonicalRecord } from '../../dns/record';
import { fieldApiName, rdataFromFields, typedRdataMember } from '../../dns/rdata-fields';
import { rdataFieldOf } from '../../dns/problem';
import type { RecordTypeDefinition } from '../../dns/record-types';
import { getRecordType } from '../../dns/record-types';
import { checkRecordDeletion, checkRecordPlacement, checkSoaSerialRaised, soaSerial } from '../../dns/zone-rules';
import { DomainError, errorFromProblems, ErrorDetail } from '../../errors/catalogue';
import { countRecords, listRecords, PageRequest, RecordFilter, recordsByIdentity, RecordRow } from '../../repositories/read-model';
import type { JournalCommentChange, JournalRecord } from '../../entities/change.entity';
import { replaceRrsetComments, type RrsetComments } from '../../repositories/rrset-comments';
import { RrsetCommentsService } from './rrset-comments.service';
import { allowedTtlsOf, type RequestContext } from '../context';
import { normaliseZoneName } from '../../dns/zone-name';
import type { WriteEngine, ZoneChange } from '../write-engine';
import { disabledOfZone, writeDisabledRecords } from '../../repositories/disabled-records';
import { ownersToCheck, type ZoneWarning } from '../../dns/zone-checks';
import { findingDetail, findingsOfWrite, warnAbout } from './zone-warnings';
import { journalFindings } from '../write-engine/apply-plan';

/** a record as the API gives it: RDATA as presentation text (`rdata`) or as typed fields (`data`, one member) */
export interface RecordChangeInput extends Omit<RecordInput, 'rdata'> {
  zone: string;
  rdata?: string | null;
  data?: { [member: string]: Record<string, unknown> | null | undefined } | null;
  /** the comment of the record's RRset becomes this ('' removes it); absent or null, it stays (docs/changes.md, «Comments») */
  comment?: string | null;
}

/**
 * Records: every rule of a change is decided here, against the zone as it is when the change is written
 * (`changeZone`: the write applies only if the zone's serial did not move): the DNS model's validation and
 * zone rules, the SOA serial, and the journal row for propagation.
 */
export class RecordsService {
  private readonly comments: RrsetCommentsService;

  constructor(
    private readonly settings: Settings,
    /** the write engine every change of a zone goes through (services/index.ts) */
    private readonly engine: WriteEngine,
  ) {
    this.comments = new RrsetCommentsService(settings);
  }

  list(ctx: RequestContext, filter: Omit<RecordFilter, 'scopeUserId'>, page?: PageRequest): Promise<RecordRow[]> {
    return listRecords(ctx.db, this.scoped(ctx, filter), page);
  }

  /**
   * Every record the caller may read (the filter within its scope and its key's read rules, as `list`: what
   * GraphQL's `records` answers), page by page in id order: at most `pageSize` rows (and never more than
   * MAX_PAGE_SIZE) are held at a time, however long the list. For bulk answers (REST's record list of
   * 100,000 records) that present the rows themselves instead of resolving every field through GraphQL
   * (docs/performance.md, «Reading zones»).
   */
  async *pages(ctx: RequestContext, filter: Omit<RecordFilter, 'scopeUserId'>, pageSize: number): AsyncIterable<readonly RecordRow[]> {
    const first = Math.min(pageSize, this.settings.maxPageSize);
    let after: number | undefined;
    for (;;) {
      // one row more than the page: whether another page follows is known without a further statement
      const rows = await this.list(ctx, filter, { first: first + 1, after });
      const page = rows.length > first ? rows.slice(0, first) : rows;
      yield page;
      if (rows.length <= first) return;
      after = page[page.length - 1].id;
    }
  }

  count(ctx: RequestContext, filter: Omit<RecordFilter, 'scopeUserId'>): Promise<number> {
    return countRecords(ctx.db, this.scoped(ctx, filter));
  }

  /**
   * The records a change wrote (its journal's additions: ZoneChangeEntry.records) that the zone holds now, with
   * their ids, among those the caller may read
   */
  async written(ctx: RequestContext, zone: { id: number; name: string }, added: readonly JournalRecord[]): Promise<RecordRow[]> {
    const policy = ctx.principal.policy;
    const readable = added.filter((r) => readsRecord(policy, zone.name, r.owner, r.type));
    return ctx.db.connection((sql) => recordsByIdentity(sql, zone, readable));
  }

  async get(ctx: RequestContext, id: number): Promise<RecordRow> {
    const [record] = await this.list(ctx, { id }, { first: 1 });
    if (!record) throw DomainError.notFound('RECORD_NOT_FOUND', 'id');
    return record;
  }

  async create(ctx: RequestContext, input: RecordChangeInput): Promise<RecordRow> {
    const zone = normaliseZoneName(input.zone);
    const record = this.parse(ctx, zone, input);
    const comment = this.commentOf(record, input);
    // the key's policy (docs/least-privilege.md): a zone it has no rule for is not there for it
    if (!seesZone(ctx.principal.policy, zone)) throw DomainError.notFound('ZONE_NOT_FOUND', 'zone');
    // the records at the owner, and at the names the zone checks need for it (its target, the delegations above)
    const touching = { owners: ownersToCheck(zone, [record]), recordIds: [] };
    return this.engine.changeZone(ctx.db, this.settings, ctx.principal, { zone: { name: zone }, touching }, async (change) => {
      // asked once the zone is read in the key's scope: an every-zone rule covers only its user's zones, and
      // another user's zone is not there for the key (404), as for a key without rules, not a refusal (403)
      requireAllowed(ctx.principal.policy, { zone, owner: record.owner, type: record.type, access: 'write' });
      const problems = checkRecordPlacement(zone, change.zone.sameOwner, record);
      if (problems.length) throw errorFromProblems(problems, record.type);
      // the zone checks, as a change set's plan holds them: an error refuses the write (a zone BIND would not
      // load), a warning is written with it, kept in its history entry (docs/changes.md, "Checks on every plan")
      const findings = findingsOfWrite(zone, [...change.zone.sameOwner, record], [record], change.zone.strictChecks);
      change.insert(record, { toggled: await takeKeptDisabled(change, record) });
      const [id] = await change.commit({ ...keptFindings(findings), ...(await this.writeComment(change, comment)) });
      warnAbout(ctx, findings);
      return { ...record, id, domainId: change.zone.id, zone };
    });
  }

  /**
   * Replaces one record. Editing the SOA requires a serial greater than the current one (RFC 1982), and that
   * serial becomes the zone's; any other edit raises the serial automatically.
   */
  async update(ctx: RequestContext, id: number, input: RecordChangeInput): Promise<RecordRow> {
    const zone = normaliseZoneName(input.zone);
    const next = this.parse(ctx, zone, input);
    const comment = this.commentOf(next, input);
    const touching = { owners: ownersToCheck(zone, [next]), recordIds: [id] };
    return this.engine.changeZone(
      ctx.db,
      this.settings,
      ctx.principal,
      { zone: { recordId: id }, touching, targetId: id },
      async (change) => {
        const current = change.zone.target;
        if (!current || !readsRecord(ctx.principal.policy, change.zone.name, current.owner, current.type))
          throw DomainError.notFound('RECORD_NOT_FOUND', 'id');
        if (change.zone.name !== zone) {
          throw DomainError.invalid('zone', `zone: record ${id} belongs to zone ${change.zone.name}, not ${zone}`, 'ZONE_MISMATCH');
        }
        requireAllowed(ctx.principal.policy, { zone, owner: current.owner, type: current.type, access: 'write' });
        requireAllowed(ctx.principal.policy, { zone, owner: next.owner, type: next.type, access: 'write' });
        const problems: ErrorDetail[] = checkRecordPlacement(zone, change.zone.sameOwner, next, current);
        if (current.type === 'SOA' && next.type === 'SOA') problems.push(...checkSoaSerialRaised(current.rdata, next.rdata));
        if (problems.length) throw errorFromProblems(problems, next.type);
        const others = change.zone.sameOwner.filter((r) => r.id !== id);
        const findings = findingsOfWrite(zone, [...others, next], [next], change.zone.strictChecks);
        // a record edited into one kept disabled: the edit is served, the disabled one no longer kept
        await takeKeptDisabled(change, next);
        change.replace(current, next);
        await change.commit({
          serialSetByCaller: next.type === 'SOA' ? soaSerial(next.rdata) : undefined,
          ...keptFindings(findings),
          ...(await this.writeComment(change, comment)),
        });
        warnAbout(ctx, findings);
        return { ...next, id, domainId: change.zone.id, zone };
      },
    );
  }

  /** Deletes one record; answers the zone it was of (by id and name) */
  async delete(ctx: RequestContext, id: number): Promise<{ id: number; name: string }> {
    return this.engine.changeZone(ctx.db, this.settings, ctx.principal, { zone: { recordId: id }, targetId: id }, async (change) => {
      const target = change.zone.target;
      if (!target || !readsRecord(ctx.principal.policy, change.zone.name, target.owner, target.type))
        throw DomainError.notFound('RECORD_NOT_FOUND', 'id');
      requireAllowed(ctx.principal.policy, { zone: change.zone.name, owner: target.owner, type: target.type, access: 'write' });
      const problems = checkRecordDeletion(change.zone.sameOwner, target);
      if (problems.length) throw errorFromProblems(problems, target.type);
      change.remove(target);
      await change.commit();
      return { id: change.zone.id, name: change.zone.name };
    });
  }

  /** the comment a record's write gives its RRset, checked before the work; undefined: none given (it stays) */
  private commentOf(record: CanonicalRecord, input: RecordChangeInput): RrsetComments | undefined {
    return input.comment === undefined || input.comment === null ? undefined : this.comments.ofRecord(record, input.comment);
  }

  /**
   * A record's write that gives its RRset a comment writes it in the change's transaction, holding the zone row's
   * lock, and answers what it changed for the change's journal row (the history); the write's policy over the
   * record's RRset is the comment's
   */
  private async writeComment(change: ZoneChange, comment: RrsetComments | undefined): Promise<{ comments?: JournalCommentChange[] }> {
    if (!comment) return {};
    change.requireLock();
    const changed = await this.comments.changesOf(change.connection, change.zone.id, [comment]);
    await replaceRrsetComments(change.connection, change.zone.id, [comment]);
    return changed.length ? { comments: changed } : {};
  }

  private scoped(ctx: RequestContext, filter: Omit<RecordFilter, 'scopeUserId'>): RecordFilter {
    const zone = filter.zone === undefined ? undefined : normaliseZoneName(filter.zone);
    const type = filter.type?.toUpperCase();
    const owner = filter.owner?.toLowerCase();
    return { ...filter, zone, type, owner, scopeUserId: scopeUserId(ctx.principal), readRules: readRulesOf(ctx.principal.policy) };
  }

  /**
   * The presentation RDATA of an input: `rdata` as given, or `data`'s fields put together (exactly one of them);
   * for `data`, where its problems are to be named (`typedAt`)
   */
  private rdataOf(input: RecordChangeInput): { rdata: string; typedAt?: (problems: ErrorDetail[]) => ErrorDetail[] } {
    const given = input.rdata !== undefined && input.rdata !== null;
    const data = input.data ?? undefined;
    if (given === (data !== undefined)) {
      throw DomainError.invalid(
        'rdata',
        given ? 'rdata: give either rdata or data, not both' : 'rdata: give the RDATA as rdata (text) or as data (fields)',
        'RDATA_OR_DATA',
      );
    }
    if (given) return { rdata: input.rdata as string };
    const members = Object.entries(data!).filter(([, value]) => value !== undefined && value !== null);
    if (members.length !== 1)
      throw DomainError.invalid('data', `data: set exactly one member (the record's type's), not ${members.length}`, 'DATA_MEMBER_COUNT');
    const [member, values] = members[0];
    const definition = getRecordType(String(input.type ?? '').trim());
    if (!definition || typedRdataMember(definition.type) !== member) {
      throw DomainError.invalid(
        `data.${member}`,
        `data.${member}: the record's type is ${JSON.stringify(input.type)}; its RDATA goes in data.${typedRdataMember(String(input.type ?? ''))}`,
        'DATA_TYPE_MISMATCH',
      );
    }
    const built = rdataFromFields(definition, values!, `data.${member}`);
    if (!built.ok) throw errorFromProblems(built.problems, definition.type);
    return { rdata: built.rdata, typedAt: (problems) => problems.map((p) => atTypedField(p, definition, member)) };
  }

  private parse(ctx: RequestContext, zone: string, change: RecordChangeInput) {
    const { rdata, typedAt = (problems: ErrorDetail[]) => problems } = this.rdataOf(change);
    const input: RecordInput = { owner: change.owner, type: change.type, ttl: change.ttl, rdata };
    const parsed = parseApiRecord(zone, input, allowedTtlsOf(ctx, this.settings));
    if (!parsed.ok) throw errorFromProblems(typedAt(parsed.problems), input.type);
    // a relative RDATA name that repeats the zone is refused here, where a person types it; an imported zone
    // file only warns (its author wrote master-file syntax on purpose)
    const repeats = parsed.warnings.filter((w) => w.code === 'RELATIVE_NAME_REPEATS_ZONE');
    if (repeats.length) throw errorFromProblems(typedAt(repeats), input.type);
    ctx.warnings?.push(...parsed.warnings);
    return parsed.record;
  }
}

/**
 * A problem of RDATA put together from typed fields, named where the caller gave it: the field its parser named
 * (`data.mx.preference`), the only field of a type that has one, else the type's member (`data.mx`); a form
 * shows it beside that input. Problems of other fields (owner, ttl) stay as they are.
 */
function atTypedField(p: ErrorDetail, definition: RecordTypeDefinition, member: string): ErrorDetail {
  if (p.field !== 'rdata') return p;
  const named = rdataFieldOf(p);
  const field = definition.fields.find((f) => f.name === named) ?? (definition.fields.length === 1 ? definition.fields[0] : undefined);
  const at = field ? `data.${member}.${fieldApiName(field.name)}` : `data.${member}`;
  return { ...p, field: at, message: p.message.replace(/^rdata:/, `${at}:`) };
}

/**
 * A record is served or disabled, never both (ZoneChangesService): a record written that the zone keeps disabled
 * is enabled, taken out of the disabled records in the change's transaction (which then holds the zone row's
 * lock). Answers whether it was, for the journal's mark (JournalRecord.toggled).
 */
async function takeKeptDisabled(change: ZoneChange, record: CanonicalRecord): Promise<boolean> {
  // a zone that keeps no disabled record (read with the zone) asks no statement more
  if (!change.zone.hasDisabled) return false;
  const kept = await disabledOfZone(change.connection, change.zone.id, { owner: record.owner, type: record.type });
  if (!kept.some((row) => row.rdata === record.rdata)) return false;
  change.requireLock();
  await writeDisabledRecords(change.connection, change.zone.id, { removed: [record], added: [] });
  return true;
}

/** a write's findings as its journal row keeps them (as a change set's: the history says what it was warned of) */
function keptFindings(findings: readonly ZoneWarning[]): { findings?: ReturnType<typeof journalFindings> } {
  return findings.length ? { findings: journalFindings(findings.map((f) => findingDetail(f))) } : {};
}
