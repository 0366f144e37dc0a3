import type { GraphQLResolveInfo } from 'graphql';
import type { RecordRow } from '../../services/zones/zone-reads.service';
import {
  Arg,
  Args,
  Ctx,
  Field,
  FieldResolver,
  ID,
  Info,
  Mutation,
  ObjectType,
  Query,
  registerEnumType,
  Resolver,
  Root,
} from 'type-graphql';
import { forgetZone, zoneNow } from '../loaders';
import type { GraphQLContext } from '../context';
import { connection } from '../pages';
import { RecordConnection } from '../types/connections';
import { DomainType } from '../types/domain.type';
import { RecordType } from '../types/record.type';
import { RecordsArgs, SearchRecordsArgs } from '../inputs/page.args';
import { parseId, parseOptionalId } from '../inputs/ids';
import { RecordInput } from '../inputs/record.input';
import { listComplexity, listPage } from './paging';
import { bindScope } from '../inputs/cursors';
import { recordTypeOf, RecordTypeEnum, typeFilter } from '../types/record-type.enum';
import { recordData, RecordDataUnion } from '../types/record-data';
import { ProposedZoneChange } from './zone-changes.resolver';
import { proposedOf, type WriteOutcome } from '../../services/zones/change-requests.service';

/** A record written: its `domain` is then read as the write left the zone, not as this operation read it before. */
function written(ctx: GraphQLContext, record: RecordRow): RecordRow {
  forgetZone(ctx.loaders, record.domainId);
  return record;
}

@ObjectType('RecordRemoval', {
  simpleResolvers: true,
  description: 'What `removeRecord` deleted: the record’s id, and its zone as the deletion left it.',
})
export class RecordRemoval {
  @Field(() => ID, { description: 'The deleted record’s id: a client’s normalised cache evicts the record by it.' })
  id!: number;

  /** not exposed; the `domain` field resolves it */
  domainId!: number;
}

@Resolver(() => RecordRemoval)
export class RecordRemovalResolver {
  @FieldResolver(() => DomainType, {
    nullable: true,
    description: 'The zone as the deletion left it (its serial, its recordCount); null if it was deleted since.',
  })
  domain(@Root() removal: RecordRemoval, @Ctx() ctx: GraphQLContext) {
    return zoneNow(ctx.loaders, removal.domainId);
  }
}

export enum WriteOutcomeEnum {
  WRITTEN = 'WRITTEN',
  PROPOSED = 'PROPOSED',
}
registerEnumType(WriteOutcomeEnum, {
  name: 'WriteOutcome',
  description: 'What became of a write (docs/changes.md, «Review»).',
  valuesConfig: {
    WRITTEN: { description: 'Written, as the write on its own (createRecord, updateRecord, removeRecord) writes it.' },
    PROPOSED: { description: 'The zone requires approvals: the write became a change request, and nothing was written.' },
  },
});

@ObjectType('RecordWriteOutcome', {
  simpleResolvers: true,
  description:
    'What a record’s write (createRecordOrPropose, updateRecordOrPropose, removeRecordOrPropose) became: WRITTEN, with what createRecord, updateRecord or removeRecord answers; or PROPOSED on a zone that requires approvals, with the change request it became and nothing written (docs/changes.md, «Review»).',
})
export class RecordWriteOutcome {
  @Field(() => WriteOutcomeEnum)
  outcome!: WriteOutcomeEnum;

  @Field({ description: 'The zone written, or the one the change request is of.' })
  zone!: string;

  @Field(() => RecordType, {
    nullable: true,
    description:
      'WRITTEN by createRecordOrPropose or updateRecordOrPropose: the record as written (its `domain`: the zone as the write left it).',
  })
  record?: RecordRow;

  @Field(() => RecordRemoval, { nullable: true, description: 'WRITTEN by removeRecordOrPropose: the deleted record’s id and its zone.' })
  removal?: RecordRemoval;

  @Field(() => ProposedZoneChange, {
    nullable: true,
    description: 'PROPOSED: the change request the write became (the whole of it: Query.changeRequest).',
  })
  changeRequest?: ProposedZoneChange;
}

/** an outcome as GraphQL answers it: what was written, the zone's loaders forgotten, or the request it became */
function outcomeOf<T>(
  ctx: GraphQLContext,
  outcome: WriteOutcome<T>,
  written: (result: T) => Pick<RecordWriteOutcome, 'zone' | 'record' | 'removal'> & { domainId: number },
): RecordWriteOutcome {
  if (outcome.outcome === 'proposed')
    return { outcome: WriteOutcomeEnum.PROPOSED, zone: outcome.changeRequest.zone, changeRequest: proposedOf(outcome.changeRequest) };
  const { domainId, ...answer } = written(outcome.written);
  forgetZone(ctx.loaders, domainId);
  return { outcome: WriteOutcomeEnum.WRITTEN, ...answer };
}

@Resolver(() => RecordType)
export class RecordResolver {
  @Query(() => RecordConnection, { description: 'Records the key may see, filtered by zone, owner and type.', complexity: listComplexity })
  records(@Args() args: RecordsArgs, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    const filter = {
      zone: args.zone ?? undefined,
      domainId: parseOptionalId(args.domainId, 'domainId'),
      owner: args.owner ?? undefined,
      type: typeFilter(args.type, args.recordType),
    };
    const scope = bindScope({ list: 'Query.records', order: 'id', filter });
    return connection(
      listPage(args, scope, ctx),
      (request) => ctx.services.records.list(ctx, filter, request),
      () => ctx.services.records.count(ctx, filter),
      info,
      scope,
    );
  }

  @Query(() => RecordConnection, {
    description:
      "The search across zones (PowerDNS-Admin's): records whose name or content holds `query`, among those the caller may read, in id order. A restricted key finds only the records its rules let it read.",
    complexity: listComplexity,
  })
  searchRecords(@Args() args: SearchRecordsArgs, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    const query = { query: args.query, mode: 'substring' as const };
    const scope = bindScope({ list: 'Query.searchRecords', order: 'id', filter: { query: args.query } });
    return connection(
      listPage(args, scope, ctx),
      (request) => ctx.services.search.search(ctx, query, request),
      () => ctx.services.search.count(ctx, query),
      info,
      scope,
    );
  }

  @Query(() => RecordType)
  record(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.records.get(ctx, parseId(id, 'id'));
  }

  @Mutation(() => RecordType, {
    description:
      'Adds a record. Held to the zone checks as a change set is: a finding of severity error (a zone BIND would not load, a record never served) refuses it with ZONE_RULE_VIOLATION, naming the finding in details; a warning is answered in extensions.warnings and kept with its history entry (Change.findings). Its `domain` answers the zone as the write left it (serial, recordCount: docs/graphql.md).',
  })
  async createRecord(@Arg('input') input: RecordInput, @Ctx() ctx: GraphQLContext) {
    return written(ctx, await ctx.services.records.create(ctx, input));
  }

  @Mutation(() => RecordType, {
    description:
      'Replaces a record (it keeps its id). An SOA edit must raise the serial (RFC 1982). Held to the zone checks as createRecord is: an error refuses it (ZONE_RULE_VIOLATION), a warning is answered and kept with its history entry. Its `domain` answers the zone as the write left it.',
  })
  async updateRecord(@Arg('id', () => ID) id: string, @Arg('input') input: RecordInput, @Ctx() ctx: GraphQLContext) {
    return written(ctx, await ctx.services.records.update(ctx, parseId(id, 'id'), input));
  }

  @Mutation(() => Boolean, { deprecationReason: 'Use removeRecord: it answers the deleted id and the zone (since 2026-11-29).' })
  async deleteRecord(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    await ctx.services.records.delete(ctx, parseId(id, 'id'));
    return true;
  }

  @Mutation(() => RecordRemoval, {
    description:
      'Deletes a record and answers its id (a client’s cache evicts the record) and the zone as the deletion left it (serial, recordCount).',
  })
  async removeRecord(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<RecordRemoval> {
    const recordId = parseId(id, 'id');
    const zone = await ctx.services.records.delete(ctx, recordId);
    forgetZone(ctx.loaders, zone.id);
    return { id: recordId, domainId: zone.id };
  }

  @Mutation(() => RecordWriteOutcome, {
    description:
      'Adds a record, as createRecord does (the same checks and refusals, its warnings in extensions.warnings); on a zone that requires approvals, proposes it instead as a change request (an ADD) and answers that request, nothing written.',
  })
  async createRecordOrPropose(@Arg('input') input: RecordInput, @Ctx() ctx: GraphQLContext): Promise<RecordWriteOutcome> {
    return outcomeOf(ctx, await ctx.services.recordWrites.create(ctx, input), (record) => ({
      zone: record.zone,
      record,
      domainId: record.domainId,
    }));
  }

  @Mutation(() => RecordWriteOutcome, {
    description:
      'Replaces a record, as updateRecord does; on a zone that requires approvals, proposes it instead as a change request (a REPLACE of the record by its id) and answers that request, nothing written.',
  })
  async updateRecordOrPropose(
    @Arg('id', () => ID) id: string,
    @Arg('input') input: RecordInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<RecordWriteOutcome> {
    return outcomeOf(ctx, await ctx.services.recordWrites.update(ctx, parseId(id, 'id'), input), (record) => ({
      zone: record.zone,
      record,
      domainId: record.domainId,
    }));
  }

  @Mutation(() => RecordWriteOutcome, {
    description:
      'Deletes a record, as removeRecord does; on a zone that requires approvals, proposes it instead as a change request (a REMOVE of the record by its id) and answers that request, nothing deleted.',
  })
  async removeRecordOrPropose(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<RecordWriteOutcome> {
    const recordId = parseId(id, 'id');
    return outcomeOf(ctx, await ctx.services.recordWrites.delete(ctx, recordId), (zone) => ({
      zone: zone.name,
      removal: { id: recordId, domainId: zone.id },
      domainId: zone.id,
    }));
  }

  @FieldResolver(() => RecordTypeEnum, {
    nullable: true,
    description: 'The type as an enum; null for an RFC 3597 TYPEnnn type (see `type`).',
  })
  recordType(@Root() record: RecordType): string | null {
    return recordTypeOf(record.type);
  }

  @FieldResolver(() => RecordDataUnion, {
    nullable: true,
    description: 'The RDATA as typed fields (one object type per record type; the same data as `rdata`).',
  })
  data(@Root() record: RecordType) {
    return recordData(record.type, record.rdata);
  }

  @FieldResolver(() => String, {
    nullable: true,
    description:
      'The comment of the record’s RRset (its owner and type; docs/changes.md, «Comments»): free text, no DNS data; null for none. Several comments the PowerDNS API gave the RRset read one a line. Set with `comment` on createRecord, updateRecord or a change set.',
  })
  comment(@Root() record: RecordType, @Ctx() ctx: GraphQLContext): Promise<string | null> {
    return ctx.loaders.commentOfRrset.load({ domainId: record.domainId, owner: record.owner, type: record.type });
  }

  @FieldResolver(() => DomainType)
  domain(@Root() record: RecordType & Pick<RecordRow, 'zoneRow'>, @Ctx() ctx: GraphQLContext) {
    // a record read with its zone (one statement) answers from that row: a zone deleted since the records
    // were read must not leave a non-null field without a value (Record.domain)
    return record.zoneRow ?? ctx.loaders.domainById.load(record.domainId);
  }
}
