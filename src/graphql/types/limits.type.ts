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
