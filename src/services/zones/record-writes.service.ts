import { rdataFromFields } from '../../dns/rdata-fields';
import { getRecordType } from '../../dns/record-types';
import { DomainError, errorFromProblems } from '../../errors/catalogue';
import type { RecordRow } from '../../repositories/read-model';
import type { RequestContext } from '../context';
import type { ChangeRequestsService, ProposalAcceptance, WriteOutcome } from './change-requests.service';
import type { RecordChangeInput, RecordsService } from './records.service';
import type { ZoneChangeSpec } from './zone-change-set';

/** what a record's deletion answers when written: the zone it was of */
export type RemovedFrom = { id: number; name: string };

/**
 * A person's write of one record (GraphQL's …OrPropose mutations, REST's record paths, the CLI and the console
 * through them): written by RecordsService, or, on a zone that requires approvals, the same change proposed as a
 * change request (ChangeRequestsService.writeOrPropose decides; docs/changes.md, «Review»). The change a request
 * carries is the change set's word for the record's write: ADD, REPLACE by id, REMOVE by id. `accepts`: whether
 * the caller's edge answers a request (by default it does).
 */
export class RecordWritesService {
  constructor(
    private readonly records: RecordsService,
    private readonly changeRequests: ChangeRequestsService,
  ) {}

  create(ctx: RequestContext, input: RecordChangeInput, accepts?: ProposalAcceptance): Promise<WriteOutcome<RecordRow>> {
    return this.changeRequests.writeOrPropose(ctx, {
      write: () => this.records.create(ctx, input),
      proposal: () => ({ zone: input.zone, changes: [{ kind: 'ADD', ...recordOf(input) }] }),
      accepts,
    });
  }

  update(ctx: RequestContext, id: number, input: RecordChangeInput, accepts?: ProposalAcceptance): Promise<WriteOutcome<RecordRow>> {
    return this.changeRequests.writeOrPropose(ctx, {
      write: () => this.records.update(ctx, id, input),
      // the record replaced by id in the zone the write names (a record of another zone is not found there)
      proposal: () => ({ zone: input.zone, changes: [{ kind: 'REPLACE', id, ...recordOf(input) }] }),
      accepts,
    });
  }

  delete(ctx: RequestContext, id: number, accepts?: ProposalAcceptance): Promise<WriteOutcome<RemovedFrom>> {
    return this.changeRequests.writeOrPropose(ctx, {
      write: () => this.records.delete(ctx, id),
      // the record removed by id, in the zone it is of (one the caller cannot read is not found)
      proposal: async () => ({ zone: (await this.records.get(ctx, id)).zone, changes: [{ kind: 'REMOVE', id }] }),
      accepts,
    });
  }
}

/** a record's write as a change set's change names the record (its zone aside) */
function recordOf(input: RecordChangeInput): Omit<ZoneChangeSpec, 'kind'> {
  return {
    owner: input.owner,
    type: input.type,
    rdata: rdataOf(input),
    ttl: input.ttl,
    ...(input.comment === undefined || input.comment === null ? {} : { comment: input.comment }),
  };
}

/**
 * The RDATA a record's write gives, as text: `rdata`, or its typed fields (`data`, one member) put together, as
 * the write itself read them (RecordsService refuses a `data` that does not name the record's type, first)
 */
function rdataOf(input: RecordChangeInput): string {
  if (input.rdata !== undefined && input.rdata !== null) return input.rdata;
  const [member, values] = Object.entries(input.data ?? {}).find(([, value]) => value !== undefined && value !== null) ?? [];
  const definition = getRecordType(input.type);
  if (!member || !values || !definition)
    throw DomainError.invalid('rdata', 'rdata: give the RDATA as rdata (text) or as data (fields)', 'RDATA_OR_DATA');
  const built = rdataFromFields(definition, values, `data.${member}`);
  if (!built.ok) throw errorFromProblems(built.problems, definition.type);
  return built.rdata;
}
