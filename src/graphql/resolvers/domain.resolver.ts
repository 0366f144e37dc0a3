import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Info, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { asksFor } from '../selection';
import { connection, pageOf, sidesAsked } from '../pages';
import { DomainConnection, RecordConnection } from '../types/connections';
import { DomainType } from '../types/domain.type';
import { RecordType } from '../types/record.type';
import { UserType } from '../types/user.type';
import { CreateDomainInput } from '../inputs/domain.input';
import { DomainsArgs, NestedRecordPageArgs, NestedRecordsArgs } from '../inputs/page.args';
import { typeFilter } from '../types/record-type.enum';
import { parseOptionalId } from '../inputs/ids';
import { bindScope } from '../inputs/cursors';
import type { PageRequest } from '../../repositories/read-model/rows';
import type { NestedRecordArgs } from '../../services/zones/zone-reads.service';
import { listComplexity, listPage, nestedFirst, nestedListComplexity } from './paging';

/**
 * A nested `Domain.records` list's filter as its loaders key it: the same arguments give the same filter, and the
 * same JSON, wherever it is made (Domain.records, and User.domains reading the records with the zones); with
 * `counts`, the windows of its records' counts, read with them (GraphQL's plain record lists, fast-path/)
 */
export function nestedRecordsFilter(args: NestedRecordsArgs, ctx: GraphQLContext, counts?: NestedRecordArgs['counts']): NestedRecordArgs {
  return {
    owner: args.owner?.toLowerCase() ?? undefined,
    type: typeFilter(args.type, args.recordType),
    perDomain: nestedFirst(args.first, ctx),
    ...(counts && { counts }),
  };
}

/**
 * The zone as this request saw it, for its records' `Record.domain`. Through type-graphql's own wrapper (with
 * FAST_PATHS=off) the parent is a copy of the zone's row into a DomainType, made of the row's own fields: a
 * row's creation time, parsed only when read (the repositories' rows), is not one of them, so the copy has none
 * and is not primed (Record.domain reads the zone then).
 */
function primeZone(domain: DomainType, ctx: GraphQLContext): void {
  if (domain.createdAt !== undefined) ctx.loaders.domainById.prime(domain.id, domain);
}

/** a CreateDomainInput as the zones service takes it */
function newZone(input: CreateDomainInput, userIdField: string) {
  return {
    userId: parseOptionalId(input.userId, userIdField),
    zone: input.zone,
    template: input.template,
    kind: input.kind ?? undefined,
    primaries: input.primaries ?? undefined,
    nameserverSet: input.nameserverSet,
  };
}

@Resolver(() => DomainType)
export class DomainResolver {
  @Query(() => DomainConnection, { description: 'Zones the key may see.', complexity: listComplexity })
  domains(@Args() args: DomainsArgs, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    const filter = {
      userId: parseOptionalId(args.userId, 'userId'),
      name: args.name ?? undefined,
      nameStartsWith: args.nameStartsWith ?? undefined,
      kind: args.kind ?? undefined,
      health: args.health ?? undefined,
    };
    const scope = bindScope({ list: 'Query.domains', order: args.orderBy, filter });
    const window = listPage(args, scope, ctx);
    // a list that shows each zone's owner or facts (the console's) reads them with the page, with the health
    // states and the propagation it shows: its zones' fields answer from what was read (ctx.loaders.listedZones)
    const withOwnersAndFacts = ['user', 'recordCount', 'dnssecState', 'dnssecStatus'].some((field) => asksFor(info, 'nodes', field));
    const plainPage = (request: PageRequest) => ctx.services.domains.list(ctx, filter, request, args.orderBy);
    return connection(
      window,
      withOwnersAndFacts
        ? async (request) => {
            const shown = {
              propagation: asksFor(info, 'nodes', 'propagation'),
              health: asksFor(info, 'nodes', 'health') ? { findings: asksFor(info, 'nodes', 'health', 'findings') } : undefined,
            };
            const listed = await ctx.services.domains.listWithOwnersAndFacts(ctx, filter, request, args.orderBy, shown);
            await ctx.loaders.readWithZoneList(listed.slice(0, window.size), shown);
            return listed.map(({ zone }) => zone);
          }
        : plainPage,
      () => ctx.services.domains.count(ctx, filter),
      info,
      scope,
      plainPage,
    );
  }

  @Query(() => DomainType, { description: 'One zone by id or name.' })
  domain(
    @Arg('id', () => ID, { nullable: true }) id: string | undefined,
    @Arg('name', () => String, { nullable: true }) name: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.domains.get(ctx, { id: parseOptionalId(id, 'id'), name: name ?? undefined });
  }

  @Query(() => DomainType, {
    nullable: true,
    description:
      'One zone by id or name, or null when there is none the key may see: `domain` beside it answers ZONE_NOT_FOUND, an error that, its field being non-null, takes the whole `data` of the query with it; this one leaves the query’s other fields their answers.',
  })
  async findDomain(
    @Arg('id', () => ID, { nullable: true }) id: string | undefined,
    @Arg('name', () => String, { nullable: true }) name: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<DomainType | null> {
    return ctx.services.domains.find(ctx, { id: parseOptionalId(id, 'id'), name: name ?? undefined });
  }

  @Mutation(() => DomainType, {
    description: 'Creates a zone with the records of a template: `template`, or the default SOA, NS and www CNAME records.',
  })
  createDomain(@Arg('input') input: CreateDomainInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.domains.create(ctx, newZone(input, 'userId'));
  }

  @Mutation(() => [DomainType], {
    description:
      'Creates many zones in one call, each as createDomain would, all or none (docs/scale.md): the zones in the order given; when any is refused none is created, and the error ZONES_NOT_CREATED names each refused zone in its details (field `input[i].zone`, its own code).',
  })
  createDomains(@Arg('input', () => [CreateDomainInput]) input: CreateDomainInput[], @Ctx() ctx: GraphQLContext) {
    return ctx.services.domains.createMany(
      ctx,
      input.map((zone, i) => newZone(zone, `input[${i}].userId`)),
    );
  }

  @Mutation(() => Boolean, { description: 'Deletes a zone (by name or id) and all its records.' })
  async deleteDomain(
    @Arg('zone', () => String, { nullable: true }) zone: string | undefined,
    @Arg('id', () => ID, { nullable: true }) id: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ) {
    await ctx.services.domains.delete(ctx, { name: zone ?? undefined, id: parseOptionalId(id, 'id') });
    return true;
  }

  @FieldResolver(() => UserType)
  user(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext) {
    return ctx.loaders.listedZones.get(domain.id)?.user ?? ctx.loaders.userById.load(domain.userId);
  }

  @FieldResolver(() => RecordType, {
    nullable: true,
    description:
      'The zone’s SOA record (its serial is `serial`): a write of one record answers the SOA its serial step left here (docs/graphql.md). Null for a key whose rules do not let it read the SOA.',
  })
  soa(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext) {
    return ctx.loaders.soaByZone.load({ id: domain.id, name: domain.name });
  }

  @FieldResolver(() => [RecordType], {
    description:
      "The zone's records in id order, optionally filtered: at most `first`, MAX_PAGE_SIZE without it (recordsConnection pages through more).",
    complexity: nestedListComplexity,
  })
  records(@Args({ validate: false }) args: NestedRecordsArgs, @Root() domain: DomainType, @Ctx() ctx: GraphQLContext) {
    const filter = nestedRecordsFilter(args, ctx);
    // the records' Record.domain is this zone as this request saw it, even if it is deleted meanwhile
    primeZone(domain, ctx);
    // read with the zone's own list (User.domains, recordsReadWithZones): the list itself, not a promise of it
    return ctx.loaders.zoneRecords(filter, { id: domain.id, name: domain.name });
  }

  @FieldResolver(() => RecordConnection, {
    description:
      "The zone's records as pages (first, after, totalCount), optionally filtered; batched over all zones of the answer in one statement.",
    complexity: listComplexity,
  })
  recordsConnection(
    @Args({ validate: false }) args: NestedRecordPageArgs,
    @Root() domain: DomainType,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const filter = { owner: args.owner?.toLowerCase() ?? undefined, type: typeFilter(args.type, args.recordType) };
    // a zone's records are a list of their own: its cursors page no other zone's
    const scope = bindScope({ list: 'Domain.recordsConnection', order: 'id', filter: { ...filter, zone: domain.id } });
    const window = listPage(args, scope, ctx);
    primeZone(domain, ctx);
    return ctx.loaders
      .recordPagesByDomain({ ...window, ...filter, asked: sidesAsked(info) })
      .load({ id: domain.id, name: domain.name })
      .then((read) => pageOf(window, read.rows, scope, read.beyond, read.countAll));
  }
}
