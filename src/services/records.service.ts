import type { Settings } from '../config/settings';
import { scopeUserId } from '../auth/principal';
import { parseRecord, RecordInput } from '../dns/record';
import { checkRecordDeletion, checkRecordPlacement, checkSoaSerialRaised, soaSerial } from '../dns/zone-rules';
import { DomainError, errorFromProblems, ErrorDetail } from '../errors/catalogue';
import { countRecords, listRecords, PageRequest, RecordFilter, RecordRow } from '../repositories/read-model';
import type { RequestContext } from './context';
import { normaliseZoneName } from './domains.service';
import { changeZone } from './zone-change';

export interface RecordChangeInput extends RecordInput { zone: string }

/**
 * Records: every rule of a change is decided here, against the zone as it is when the change is written
 * (`changeZone`: the write applies only if the zone's serial did not move): the DNS model's validation and
 * zone rules, the SOA serial, and the journal row for propagation.
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
    const record = this.parse(ctx, zone, input);
    return changeZone(ctx.em, this.settings, ctx.principal, { zone: { name: zone }, owner: record.owner }, async (change) => {
      const problems = checkRecordPlacement(zone, change.zone.sameOwner, record);
      if (problems.length) throw errorFromProblems(problems, record.type);
      change.insert(record);
      const [id] = await change.commit();
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
    return changeZone(ctx.em, this.settings, ctx.principal, { zone: { recordId: id }, owner: next.owner, targetId: id }, async (change) => {
      const current = change.zone.target;
      if (!current) throw DomainError.notFound('RECORD_NOT_FOUND', 'id');
      if (change.zone.name !== zone) {
        throw DomainError.invalid('zone', `zone: record ${id} belongs to zone ${change.zone.name}, not ${zone}`, 'ZONE_MISMATCH');
      }
      const problems: ErrorDetail[] = checkRecordPlacement(zone, change.zone.sameOwner, next, current);
      if (current.type === 'SOA' && next.type === 'SOA') problems.push(...checkSoaSerialRaised(current.rdata, next.rdata));
      if (problems.length) throw errorFromProblems(problems, next.type);
      change.replace(current, next);
      await change.commit({ serialSetByCaller: next.type === 'SOA' ? soaSerial(next.rdata) : undefined });
      return { ...next, id, domainId: change.zone.id, zone };
    });
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    await changeZone(ctx.em, this.settings, ctx.principal, { zone: { recordId: id }, targetId: id }, async (change) => {
      const target = change.zone.target;
      if (!target) throw DomainError.notFound('RECORD_NOT_FOUND', 'id');
      const problems = checkRecordDeletion(change.zone.sameOwner, target);
      if (problems.length) throw errorFromProblems(problems, target.type);
      change.remove(target);
      await change.commit();
    });
  }

  private scoped(ctx: RequestContext, filter: Omit<RecordFilter, 'scopeUserId'>): RecordFilter {
    const zone = filter.zone === undefined ? undefined : normaliseZoneName(filter.zone);
    const type = filter.type?.toUpperCase();
    const owner = filter.owner?.toLowerCase();
    return { ...filter, zone, type, owner, scopeUserId: scopeUserId(ctx.principal) };
  }

  private parse(ctx: RequestContext, zone: string, input: RecordInput) {
    const parsed = parseRecord(zone, input, this.settings.allowedTtls);
    if (!parsed.ok) throw errorFromProblems(parsed.problems, input.type);
    // a relative RDATA name that repeats the zone is refused here, where a person types it; an imported zone
    // file only warns (its author wrote master-file syntax on purpose)
    const repeats = parsed.warnings.filter((w) => w.code === 'RELATIVE_NAME_REPEATS_ZONE');
    if (repeats.length) throw errorFromProblems(repeats, input.type);
    ctx.warnings?.push(...parsed.warnings);
    return parsed.record;
  }
}
