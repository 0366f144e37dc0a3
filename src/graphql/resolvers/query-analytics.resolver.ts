import { Arg, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { DomainType } from '../types/domain.type';
import { RecordType } from '../types/record.type';
import { UserType } from '../types/user.type';
import {
  AccountQueryDimensionEnum,
  QueriedNameType,
  QueryDimensionEnum,
  QueryStatsType,
  QueryStepEnum,
} from '../types/query-analytics.type';

/** `Domain.queries` and `Domain.topQueriedNames`: a zone's traffic, read where the zone is (docs/analytics.md). */
@Resolver(() => DomainType)
export class QueryAnalyticsDomainResolver {
  @FieldResolver(() => QueryStatsType, {
    description:
      'The zone’s answers over a window (since … until, default now) in buckets of `step`, split `by` RCODE (the default), type, owner or secondary, each bucket with its coverage: a gap is told, never a zero. Counted from the secondaries’ dnstap (docs/analytics.md). A restricted key needs to read the whole zone (FORBIDDEN_BY_POLICY), as for its zone file.',
    complexity: 20,
  })
  async queries(
    @Root() domain: DomainType,
    @Ctx() ctx: GraphQLContext,
    @Arg('since', () => Date) since: Date,
    @Arg('until', () => Date, { nullable: true }) until: Date | undefined,
    @Arg('step', () => QueryStepEnum, { defaultValue: QueryStepEnum.HOUR }) step: QueryStepEnum,
    @Arg('by', () => [QueryDimensionEnum], { defaultValue: [QueryDimensionEnum.RCODE] }) by: QueryDimensionEnum[],
  ): Promise<QueryStatsType> {
    ctx.services.queryAnalytics.mayReadZoneTraffic(ctx, domain.name);
    const value = await ctx.loaders.zoneQueries({ since, until, step, by: [...new Set(by)].sort() }).load(domain.id);
    return { ...value.window, buckets: value.buckets };
  }

  @FieldResolver(() => [QueriedNameType], {
    description:
      'The zone’s most queried owners over a window, most first; with `rcode` (NXDOMAIN: the names asked for that do not exist) those answered with it alone; `first` from 1 to 1000. The owners beyond ANALYTICS_NAMES_PER_MINUTE are not among them.',
    complexity: 10,
  })
  topQueriedNames(
    @Root() domain: DomainType,
    @Ctx() ctx: GraphQLContext,
    @Arg('since', () => Date) since: Date,
    @Arg('until', () => Date, { nullable: true }) until: Date | undefined,
    @Arg('rcode', () => String, { nullable: true }) rcode: string | undefined,
    @Arg('first', () => Int, { defaultValue: 10 }) first: number,
  ): Promise<QueriedNameType[]> {
    ctx.services.queryAnalytics.mayReadZoneTraffic(ctx, domain.name);
    return ctx.loaders.topQueriedNames({ since, until, first, rcode }).load(domain.id);
  }
}

/** `Record.queryCount` and `Record.lastQueried`: an RRset's traffic (each record of it answers its RRset's). */
@Resolver(() => RecordType)
export class QueryAnalyticsRecordResolver {
  @FieldResolver(() => Date, {
    nullable: true,
    description:
      'When the record’s RRset (owner and type) was last answered by a secondary; null: not since the counts began or were pruned.',
    complexity: 2,
  })
  async lastQueried(@Root() record: RecordType, @Ctx() ctx: GraphQLContext): Promise<Date | null> {
    const value = await ctx.loaders.rrsetQueries({}).load({ zoneId: record.domainId, owner: record.owner, type: record.type });
    return value.lastQueried;
  }

  @FieldResolver(() => Number, {
    description: 'How many times the record’s RRset (owner and type) was answered over a window (since … until, default the last day).',
    complexity: 2,
  })
  async queryCount(
    @Root() record: RecordType,
    @Ctx() ctx: GraphQLContext,
    @Arg('since', () => Date, { nullable: true }) since: Date | undefined,
    @Arg('until', () => Date, { nullable: true }) until: Date | undefined,
  ): Promise<number> {
    const value = await ctx.loaders
      .rrsetQueries({ since, until })
      .load({ zoneId: record.domainId, owner: record.owner, type: record.type });
    return value.count;
  }
}

/** `User.queries`: an account's traffic, the sum of its zones', read where the user is (docs/analytics.md). */
@Resolver(() => UserType)
export class QueryAnalyticsUserResolver {
  @FieldResolver(() => QueryStatsType, {
    description:
      'The answers of all the account’s zones over a window (since … until, default now) in buckets of `step`, split `by` RCODE (the default), type, secondary or zone (no owner: an account’s are unbounded), each bucket with its coverage as Domain.queries has it. The user themself and the admin; a restricted key needs to read each of the account’s zones whole (FORBIDDEN_BY_POLICY).',
    // five times Domain.queries's 20: one account's totals read the rows of all its zones (in one statement, as
    // Domain.queries over each zone would), and how many zones that is is not known when the cost is counted. A
    // page of 100 users asking it costs 10,000, a twentieth of the default ceiling (GRAPHQL_MAX_COMPLEXITY).
    complexity: 100,
  })
  async queries(
    @Root() user: UserType,
    @Ctx() ctx: GraphQLContext,
    @Arg('since', () => Date) since: Date,
    @Arg('until', () => Date, { nullable: true }) until: Date | undefined,
    @Arg('step', () => QueryStepEnum, { defaultValue: QueryStepEnum.HOUR }) step: QueryStepEnum,
    @Arg('by', () => [AccountQueryDimensionEnum], { defaultValue: [AccountQueryDimensionEnum.RCODE] }) by: AccountQueryDimensionEnum[],
  ): Promise<QueryStatsType> {
    await ctx.services.queryAnalytics.mayReadAccountTraffic(ctx, user.id);
    const value = await ctx.loaders.accountQueries({ since, until, step, by: [...new Set(by)].sort() }).load(user.id);
    return { ...value.window, buckets: value.buckets };
  }
}
