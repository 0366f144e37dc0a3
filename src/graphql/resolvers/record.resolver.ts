import type { GraphQLResolveInfo } from 'graphql';
import type { RecordRow } from '../../services/zones/zone-reads.service';
import { Arg, Args, Ctx, FieldResolver, ID, Info, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { connection } from '../types/connection';
import { RecordConnection } from '../types/connections';
import { DomainType } from '../types/domain.type';
import { RecordType } from '../types/record.type';
import { RecordsArgs, SearchRecordsArgs } from '../inputs/page.args';
import { parseId, parseOptionalId } from '../inputs/ids';
import { RecordInput } from '../inputs/record.input';
import { firstOf, listComplexity } from './paging';
import { recordTypeOf, RecordTypeEnum, typeFilter } from '../types/record-type.enum';
import { recordData, RecordDataUnion } from '../types/record-data';

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
    const first = firstOf(args, ctx);
    return connection(
      first,
      (limit) => ctx.services.records.list(ctx, filter, { first: limit, after: parseOptionalId(args.after, 'after') }),
      () => ctx.services.records.count(ctx, filter),
      info,
    );
  }

  @Query(() => RecordConnection, {
    description:
      "The search across zones (PowerDNS-Admin's): records whose name or content holds `query`, among those the caller may read, in id order. A restricted key finds only the records its rules let it read.",
    complexity: listComplexity,
  })
  searchRecords(@Args() args: SearchRecordsArgs, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    const query = { query: args.query, mode: 'substring' as const };
    const first = firstOf(args, ctx);
    return connection(
      first,
      (limit) => ctx.services.search.search(ctx, query, { first: limit, after: parseOptionalId(args.after, 'after') }),
      () => ctx.services.search.count(ctx, query),
      info,
    );
  }

  @Query(() => RecordType)
  record(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.records.get(ctx, parseId(id, 'id'));
  }

  @Mutation(() => RecordType, {
    description:
      'Adds a record. Held to the zone checks as a change set is: a finding of severity error (a zone BIND would not load, a record never served) refuses it with ZONE_RULE_VIOLATION, naming the finding in details; a warning is answered in extensions.warnings and kept with its history entry (Change.findings).',
  })
  createRecord(@Arg('input') input: RecordInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.records.create(ctx, input);
  }

  @Mutation(() => RecordType, {
    description:
      'Replaces a record. An SOA edit must raise the serial (RFC 1982). Held to the zone checks as createRecord is: an error refuses it (ZONE_RULE_VIOLATION), a warning is answered and kept with its history entry.',
  })
  updateRecord(@Arg('id', () => ID) id: string, @Arg('input') input: RecordInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.records.update(ctx, parseId(id, 'id'), input);
  }

  @Mutation(() => Boolean)
  async deleteRecord(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    await ctx.services.records.delete(ctx, parseId(id, 'id'));
    return true;
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

  @FieldResolver(() => DomainType)
  domain(@Root() record: RecordType & Pick<RecordRow, 'zoneRow'>, @Ctx() ctx: GraphQLContext) {
    // a record read with its zone (one statement) answers from that row: a zone deleted since the records
    // were read must not leave a non-null field without a value (Record.domain)
    return record.zoneRow ?? ctx.loaders.domainById.load(record.domainId);
  }
}
