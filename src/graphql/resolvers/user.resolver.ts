import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Info, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { connection, pageOf, sidesAsked } from '../pages';
import { bindScope } from '../inputs/cursors';
import { UserConnection } from '../types/connections';
import { DomainType } from '../types/domain.type';
import { UserType } from '../types/user.type';
import { NestedDomainPageArgs, NestedListArgs, UsersArgs } from '../inputs/page.args';
import { DomainConnection } from '../types/connections';
import { parseId, parseOptionalId } from '../inputs/ids';
import { UserInput } from '../inputs/user.input';
import { UserLimitsInput } from '../inputs/limits.input';
import { UserLimitsType } from '../types/limits.type';
import type { NestedRecordArgs } from '../../services/zones/zone-reads.service';
import { nestedRecordsFilter } from './domain.resolver';
import { listComplexity, listPage, nestedFirst, nestedListComplexity } from './paging';

/**
 * A plain record list below a list of zones, as GraphQL's fast path finds it (fast-path/plain-record-lists.ts): its
 * arguments, and its counts' windows when it asks for its records' counts
 */
export interface PlainRecordListBelow {
  args: Record<string, unknown>;
  counts?: NestedRecordArgs['counts'];
}

/**
 * The filters of the plain record lists asked for under a User.domains list (the arguments of each, as GraphQL's
 * fast path finds them: fast-path/plain-record-lists.ts), distinct, each as Domain.records makes it: the zones'
 * loader reads those records with the zones. A list whose arguments Domain.records refuses is not read ahead:
 * its own resolver reports the error where the list is.
 */
function recordListsBelow(lists: readonly PlainRecordListBelow[], ctx: GraphQLContext): NestedRecordArgs[] {
  const filters = new Map<string, NestedRecordArgs>();
  for (const { args, counts } of lists) {
    try {
      const filter = nestedRecordsFilter(args, ctx, counts);
      filters.set(JSON.stringify(filter), filter);
    } catch {
      continue;
    }
  }
  return [...filters.values()];
}

@Resolver(() => UserType)
export class UserResolver {
  @Query(() => UserConnection, { description: 'Users the key may see (a user key: only its own).', complexity: listComplexity })
  users(@Args() args: UsersArgs, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    const filter = { email: args.email ?? undefined };
    const scope = bindScope({ list: 'Query.users', order: 'id', filter });
    return connection(
      listPage(args, scope, ctx),
      (request) => ctx.services.users.list(ctx, filter, request),
      () => ctx.services.users.count(ctx, filter),
      info,
      scope,
    );
  }

  @Query(() => UserType, { description: 'One user by id and/or e-mail.' })
  user(
    @Arg('id', () => ID, { nullable: true }) id: string | undefined,
    @Arg('email', () => String, { nullable: true }) email: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.users.get(ctx, { id: parseOptionalId(id, 'id'), email: email ?? undefined });
  }

  @Mutation(() => UserType, { description: 'Admin key only.' })
  createUser(@Arg('input') input: UserInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.users.create(ctx, input);
  }

  @Mutation(() => UserType)
  updateUser(@Arg('id', () => ID) id: string, @Arg('input') input: UserInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.users.update(ctx, parseId(id, 'id'), input);
  }

  @Mutation(() => Boolean, { description: 'Deletes the user with all its zones and records. Admin key only.' })
  async deleteUser(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    await ctx.services.users.delete(ctx, parseId(id, 'id'));
    return true;
  }

  @Mutation(() => UserLimitsType, { description: "Sets a user's rate limit and quotas. Admin key only." })
  setUserLimits(@Arg('id', () => ID) id: string, @Arg('input') input: UserLimitsInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.users.setLimits(ctx, parseId(id, 'id'), { ...input });
  }

  @FieldResolver(() => UserLimitsType, { description: "The user's rate limit and quotas, and its zone count." })
  limits(@Root() user: UserType, @Ctx() ctx: GraphQLContext) {
    return ctx.services.users.limits(ctx, user.id);
  }

  @FieldResolver(() => [DomainType], {
    description: "The user's zones, in id order: at most `first`, MAX_PAGE_SIZE without it (domainsConnection pages through more).",
    complexity: nestedListComplexity,
  })
  domains(
    @Args({ validate: false }) args: NestedListArgs,
    @Root() user: UserType,
    @Ctx() ctx: GraphQLContext,
    // the arguments of the plain record lists below, read ahead with the zones: handed in by the fast path that
    // answers them (fast-path/direct-field-resolvers.ts); none otherwise
    plainRecordLists: readonly PlainRecordListBelow[] = [],
  ) {
    const first = nestedFirst(args.first, ctx);
    const records = plainRecordLists.length ? recordListsBelow(plainRecordLists, ctx) : [];
    return ctx.loaders.domainsByUserId(records.length ? { first, records } : { first }).load(user.id);
  }

  @FieldResolver(() => DomainConnection, {
    description: "The user's zones as pages (first, after, totalCount); batched over all users of the answer in one statement.",
    complexity: listComplexity,
  })
  domainsConnection(
    @Args({ validate: false }) args: NestedDomainPageArgs,
    @Root() user: UserType,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const name = args.name ?? undefined;
    // a user's zones are a list of their own: its cursors page no other user's
    const scope = bindScope({ list: 'User.domainsConnection', order: 'id', filter: { name, user: user.id } });
    const window = listPage(args, scope, ctx);
    return ctx.loaders
      .domainPagesByUserId({ ...window, name, asked: sidesAsked(info) })
      .load(user.id)
      .then((read) => pageOf(window, read.rows, scope, read.beyond, read.countAll));
  }
}
