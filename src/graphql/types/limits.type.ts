import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('LimitsInForce', { simpleResolvers: true, description: 'The values that apply: the user’s own, else the defaults.' })
export class LimitsInForceType {
  @Field(() => Int, { description: 'Requests per second the bucket refills (0: no limit).' })
  ratePerSecond!: number;

  @Field(() => Int, { description: 'Requests the bucket holds: how many may come at once.' })
  rateBurst!: number;

  @Field(() => Int, { description: 'Zones the user may have (0: no quota).' })
  maxZones!: number;

  @Field(() => Int, { description: 'Records one zone of the user may hold (0: no quota).' })
  maxRecordsPerZone!: number;
}

@ObjectType('UserLimits', {
  simpleResolvers: true,
  description: 'A user’s rate limit and quotas as the admin set them (null: the default of the service’s settings).',
})
export class UserLimitsType {
  @Field(() => Int, { nullable: true })
  ratePerSecond!: number | null;

  @Field(() => Int, { nullable: true })
  rateBurst!: number | null;

  @Field(() => Int, { nullable: true })
  maxZones!: number | null;

  @Field(() => Int, { nullable: true })
  maxRecordsPerZone!: number | null;

  @Field(() => Int, { description: 'The zones the user has now.' })
  zoneCount!: number;

  @Field(() => LimitsInForceType)
  effective!: LimitsInForceType;
}

@ObjectType('ApiKeyRate', {
  simpleResolvers: true,
  description: 'An API key’s own rate limit, besides its user’s (null: the default of the service’s settings).',
})
export class ApiKeyRateType {
  @Field(() => Int, { nullable: true })
  ratePerSecond!: number | null;

  @Field(() => Int, { nullable: true })
  rateBurst!: number | null;
}

@ObjectType('OperationLimits', {
  simpleResolvers: true,
  description:
    'What one GraphQL operation may ask for, as the service checks it before anything runs (docs/graphql.md, «Limits»): an operation past one is refused with QUERY_TOO_COMPLEX, whose `extensions.limits` are these same figures.',
})
export class OperationLimitsType {
  @Field(() => Int, {
    description:
      'The cost ceiling (GRAPHQL_MAX_COMPLEXITY): a field costs 1 and what it asks for, a list its page size times what each item asks for.',
  })
  maxCost!: number;

  @Field(() => Int, { description: 'How deep an operation may nest its fields (GRAPHQL_MAX_DEPTH).' })
  maxDepth!: number;

  @Field(() => Int, {
    description:
      'The largest `first` of a list (MAX_PAGE_SIZE); a nested list without `first` (Domain.records) returns and is costed as this many a parent at most.',
  })
  maxPageSize!: number;

  @Field(() => Int, { description: 'The page size of a top-level list or a nested connection without `first`, and what it is costed as.' })
  defaultPageSize!: number;
}
