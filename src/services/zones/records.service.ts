import type { Settings } from '../../config/settings';
import { scopeUserId } from '../../auth/principal';
import { readsRecord, requireAllowed, seesZone } from '../../auth/policy';
import { readRulesOf } from '../../auth/policy';
import { parseApiRecord, RecordInput, type CanonicalRecord } from '../../dns/record';
import { fieldApiName, rdataFromFields, typedRdataMember } from '../../dns/rdata-fields';
import { rdataFieldOf } from '../../dns/problem';
import type { RecordTypeDefinition } from '../../dns/record-types';
import { getRecordType } from '../../dns/record-types';
import { checkRecordDeletion, checkRecordPlacement, checkSoaSerialRaised } from '../../dns/zone-rules';
import { DomainError, errorFromProblems, ErrorDetail } from '../../errors/catalogue';
import { countRecords, listRecords, PageRequest, RecordFilter, recordsByIdentity, RecordRow } from '../../repositories/read-model';
import type { JournalRecord } from '../../entities/change.entity';
import type { RrsetComments } from '../../repositories/rrset-comments';
import { RrsetCommentsService } from './rrset-comments.service';
import { allowedTtlsOf, type RequestContext } from '../context';
import { normaliseZoneName } from '../../dns/zone-name';
import { ownersToCheck } from '../../dns/zone-checks';
import type { ZoneChangesService } from './zone-changes.service';
import type { ParsedChange } from './change-parse';

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
    /** a record's write is a change set of one change, planned as every set is */
    private readonly zoneChanges: ZoneChangesService,
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

  /**
   * Adds one record: a change set of one ADD (`ZoneChangesService.applyOne`), held to every rule a set is, after
   * the record API's own refusals (the key's policy over the record, its placement at its owner).
   */
  async create(ctx: RequestContext, input: RecordChangeInput): Promise<RecordRow> {
    const zone = normaliseZoneName(input.zone);
    const record = this.parse(ctx, zone, input);
    const comment = this.commentOf(record, input);
    // the key's policy (docs/least-privilege.md): a zone it has no rule for is not there for it
    if (!seesZone(ctx.principal.policy, zone)) throw DomainError.notFound('ZONE_NOT_FOUND', 'zone');
    let domainId = 0;
    const { insertedIds } = await this.one(ctx, {
      zone,
      change: { kind: 'ADD', records: [record] },
      // the records at the owner, and at the names the zone checks need for it (its target, the delegations above)
      owners: ownersToCheck(zone, [record]),
      comment,
      precheck: (change) => {
        domainId = change.zone.id;
        // asked once the zone is read in the key's scope: an every-zone rule covers only its user's zones, and
        // another user's zone is not there for the key (404), as for a key without rules, not a refusal (403)
        requireAllowed(ctx.principal.policy, { zone, owner: record.owner, type: record.type, access: 'write' });
        const problems = checkRecordPlacement(zone, change.zone.sameOwner, record);
        if (problems.length) throw errorFromProblems(problems, record.type);
      },
    });
    return { ...record, id: insertedIds[0], domainId, zone };
  }

  /**
   * Replaces one record, in place: it keeps its id (a set of one REPLACE by id otherwise). Editing the SOA requires
   * a serial greater than the current one (RFC 1982), and that serial becomes the zone's; any other edit raises
   * the serial automatically. An edit that changes nothing writes nothing, as a set that changes nothing.
   */
  async update(ctx: RequestContext, id: number, input: RecordChangeInput): Promise<RecordRow> {
    const zone = normaliseZoneName(input.zone);
    const next = this.parse(ctx, zone, input);
    const comment = this.commentOf(next, input);
    let domainId = 0;
    let soa = false;
    await this.one(ctx, {
      zone,
      recordId: id,
      editInPlace: id,
      // an SOA edited is the zone's SOA with the caller's serial (as DNS UPDATE gives one), not a set's record
      change: () => (soa ? undefined : { kind: 'REPLACE', id, records: [next] }),
      soa: () => (soa ? next : undefined),
      owners: ownersToCheck(zone, [next]),
      comment,
      precheck: (change) => {
        const current = change.zone.target;
        if (!current || !readsRecord(ctx.principal.policy, change.zone.name, current.owner, current.type))
          throw DomainError.notFound('RECORD_NOT_FOUND', 'id');
        if (change.zone.name !== zone) {
          throw DomainError.invalid('zone', `zone: record ${id} belongs to zone ${change.zone.name}, not ${zone}`, 'ZONE_MISMATCH');
        }
        domainId = change.zone.id;
        requireAllowed(ctx.principal.policy, { zone, owner: current.owner, type: current.type, access: 'write' });
        requireAllowed(ctx.principal.policy, { zone, owner: next.owner, type: next.type, access: 'write' });
        // the SOA edited into another type is the SOA deleted: refused as a deletion of it is
        const problems: ErrorDetail[] =
          current.type === 'SOA' && next.type !== 'SOA' ? checkRecordDeletion(change.zone.sameOwner, current) : [];
        problems.push(...checkRecordPlacement(zone, change.zone.sameOwner, next, current));
        soa = current.type === 'SOA' && next.type === 'SOA';
        if (soa) problems.push(...checkSoaSerialRaised(current.rdata, next.rdata));
        if (problems.length) throw errorFromProblems(problems, next.type);
      },
    });
    return { ...next, id, domainId, zone };
  }

  /** Deletes one record (a set of one REMOVE by id); answers the zone it was of (by id and name) */
  async delete(ctx: RequestContext, id: number): Promise<{ id: number; name: string }> {
    let zone = { id: 0, name: '' };
    await this.one(ctx, {
      zone: '',
      recordId: id,
      change: { kind: 'REMOVE', id, records: [] },
      owners: [],
      precheck: (change) => {
        const target = change.zone.target;
        if (!target || !readsRecord(ctx.principal.policy, change.zone.name, target.owner, target.type))
          throw DomainError.notFound('RECORD_NOT_FOUND', 'id');
        requireAllowed(ctx.principal.policy, { zone: change.zone.name, owner: target.owner, type: target.type, access: 'write' });
        const problems = checkRecordDeletion(change.zone.sameOwner, target);
        if (problems.length) throw errorFromProblems(problems, target.type);
        zone = { id: change.zone.id, name: change.zone.name };
      },
    });
    return zone;
  }

  /**
   * A record's write as a set of one change (ZoneChangesService.applyOne), its problems named as the record API
   * names them: the plan's `changes[0].rdata` is this write's `rdata`
   */
  private async one(
    ctx: RequestContext,
    input: Omit<Parameters<ZoneChangesService['applyOne']>[1], 'change' | 'soa'> & {
      change?: ParsedChange | (() => ParsedChange | undefined);
      soa?: () => CanonicalRecord | undefined;
    },
  ): Promise<{ insertedIds: number[] }> {
    const { change, soa, ...rest } = input;
    try {
      return await this.zoneChanges.applyOne(ctx, {
        ...rest,
        change: typeof change === 'function' ? change : () => change,
        soa: soa ?? (() => undefined),
      });
    } catch (error) {
      throw error instanceof DomainError ? asOneRecord(error) : error;
    }
  }

  /** the comment a record's write gives its RRset, checked before the work; undefined: none given (it stays) */
  private commentOf(record: CanonicalRecord, input: RecordChangeInput): RrsetComments | undefined {
    return input.comment === undefined || input.comment === null ? undefined : this.comments.ofRecord(record, input.comment);
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
 * A plan's problem as a single record's write names it: the set's one change is the write itself
 * (`changes[0].rdata` is `rdata`; `changes[0]`, a guarded RRset, is the record's `owner`)
 */
function asOneRecord(error: DomainError): DomainError {
  const at = (text: string) => text.replace(/^changes\[0\]\./, '').replace(/^changes\[0\](?=:|$)/, 'owner');
  if (!error.details.some((d) => d.field.startsWith('changes[0]'))) return error;
  const details = error.details.map((d) => (d.field.startsWith('changes[0]') ? { ...d, field: at(d.field), message: at(d.message) } : d));
  return new DomainError(error.code, at(error.message), details);
}
