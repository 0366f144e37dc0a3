import type { Settings } from '../config/settings';
import { scopeUserId } from '../auth/principal';
import { parseRecord, RecordInput } from '../dns/record';
import { checkRecordDeletion, checkRecordPlacement, checkSoaSerialRaised, soaSerial, StoredRecord } from '../dns/zone-rules';
import { Record } from '../entities';
import { DomainError, errorFromProblems, ErrorDetail } from '../errors/catalogue';
import { countRecords, listRecords, PageRequest, RecordFilter, RecordRow } from '../repositories/read-model';
import type { RequestContext } from './context';
import { inTransaction } from './db-errors';
import { normaliseZoneName } from './domains.service';
import { journalRecord, ZoneChange } from './zone-change';

export interface RecordChangeInput extends RecordInput { zone: string }

const stored = (record: Record): StoredRecord => ({
  id: record.id,
  owner: record.owner,
  type: record.type,
  rdata: record.rdata,
  ttl: record.ttl,
});

const toRow = (record: Record, zone: string): RecordRow => ({
  id: record.id,
  domainId: record.domain.id,
  zone,
  owner: record.owner,
  type: record.type,
  rdata: record.rdata,
  ttl: record.ttl,
});

/**
 * Records: every rule of a change is decided here, in one transaction with the zone row locked: the DNS
 * model's validation and zone rules, the SOA serial, and the journal row for propagation.
 */
export class RecordsService {
  constructor(private readonly settings: Settings) {}

  list(ctx: RequestContext, filter: Omit<RecordFilter, 'scopeUserId'>, page?: PageRequest): Promise<RecordRow[]> {
    return listRecords(ctx.em, this.scoped(ctx, filter), page);
  }

  count(ctx: RequestContext, filter: Omit<RecordFilter, 'scopeUserId'>): Promise<number> {
    return countRecords(ctx.em, this.scoped(ctx, filter));
  }

  async get(ctx: RequestContext, id: number): Promise<RecordRow> {
    const [record] = await this.list(ctx, { id }, { first: 1 });
    if (!record) throw DomainError.notFound('RECORD_NOT_FOUND', 'id');
    return record;
  }

  async create(ctx: RequestContext, input: RecordChangeInput): Promise<RecordRow> {
    const zone = normaliseZoneName(input.zone);
    const record = this.parse(zone, input);
    return inTransaction(ctx.em, async (em) => {
      const change = await ZoneChange.lock(em, this.settings, ctx.principal, { name: zone });
      const sameOwner = await change.recordsAt(record.owner);
      const problems = checkRecordPlacement(zone, sameOwner.map(stored), record);
      if (problems.length) throw errorFromProblems(problems, record.type);
      const created = em.create(Record, { ...record, domain: change.domain });
      change.added.push(journalRecord(created));
      await change.finish();
      return toRow(created, zone);
    });
  }

  /**
   * Replaces one record. Editing the SOA requires a serial greater than the current one (RFC 1982), and that
   * serial becomes the zone's; any other edit raises the serial automatically.
   */
  async update(ctx: RequestContext, id: number, input: RecordChangeInput): Promise<RecordRow> {
    const zone = normaliseZoneName(input.zone);
    const next = this.parse(zone, input);
    return inTransaction(ctx.em, async (em) => {
      const domainId = await this.domainOf(em, ctx, id);
      const change = await ZoneChange.lock(em, this.settings, ctx.principal, { id: domainId });
      if (change.domain.name !== zone) {
        throw DomainError.invalid('zone', `zone: record ${id} belongs to zone ${change.domain.name}, not ${zone}`, 'ZONE_MISMATCH');
      }
      const current = await em.findOne(Record, { id, domain: domainId });
      if (!current) throw DomainError.notFound('RECORD_NOT_FOUND', 'id');
      const sameOwner = await change.recordsAt(next.owner);
      const problems: ErrorDetail[] = checkRecordPlacement(zone, sameOwner.map(stored), next, stored(current));
      if (current.type === 'SOA' && next.type === 'SOA') problems.push(...checkSoaSerialRaised(current.rdata, next.rdata));
      if (problems.length) throw errorFromProblems(problems, next.type);
      if (current.owner === next.owner && current.type === next.type && current.rdata === next.rdata && current.ttl === next.ttl) {
        // RESTKnot answers an edit that changes nothing as a duplicate; so do we
        throw errorFromProblems([{ field: 'rdata', code: 'DUPLICATE_RECORD', message: 'The record already exists' }]);
      }
      change.removed.push(journalRecord(current));
      Object.assign(current, next);
      change.added.push(journalRecord(current));
      if (current.type === 'SOA') await change.finish(current, soaSerial(current.rdata));
      else await change.finish();
      return toRow(current, zone);
    });
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    await inTransaction(ctx.em, async (em) => {
      const domainId = await this.domainOf(em, ctx, id);
      const change = await ZoneChange.lock(em, this.settings, ctx.principal, { id: domainId });
      const target = await em.findOne(Record, { id, domain: domainId });
      if (!target) throw DomainError.notFound('RECORD_NOT_FOUND', 'id');
      const sameOwner = await change.recordsAt(target.owner);
      const problems = checkRecordDeletion(sameOwner.map(stored), stored(target));
      if (problems.length) throw errorFromProblems(problems, target.type);
      change.removed.push(journalRecord(target));
      em.remove(target);
      await change.finish();
    });
  }

  private scoped(ctx: RequestContext, filter: Omit<RecordFilter, 'scopeUserId'>): RecordFilter {
    const zone = filter.zone === undefined ? undefined : normaliseZoneName(filter.zone);
    const type = filter.type?.toUpperCase();
    const owner = filter.owner?.toLowerCase();
    return { ...filter, zone, type, owner, scopeUserId: scopeUserId(ctx.principal) };
  }

  /** The zone of a record the caller may see; not-found otherwise (another user's record is not revealed). */
  private async domainOf(em: RequestContext['em'], ctx: RequestContext, id: number): Promise<number> {
    const [row] = await listRecords(em, { id, scopeUserId: scopeUserId(ctx.principal) }, { first: 1 });
    if (!row) throw DomainError.notFound('RECORD_NOT_FOUND', 'id');
    return row.domainId;
  }

  private parse(zone: string, input: RecordInput) {
    const parsed = parseRecord(zone, input, this.settings.allowedTtls);
    if (!parsed.ok) throw errorFromProblems(parsed.problems, input.type);
    return parsed.record;
  }
}
