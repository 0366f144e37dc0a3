import { Field, InputType, Int } from 'type-graphql';

/** a field left out is left as it is; null returns it to the default; 0 means no limit (a burst is at least 1) */
@InputType({ description: 'A field left out stays as it is; null returns it to the default; 0 means no limit.' })
export class UserLimitsInput {
  @Field(() => Int, { nullable: true })
  ratePerSecond?: number | null;

  @Field(() => Int, { nullable: true })
  rateBurst?: number | null;

  @Field(() => Int, { nullable: true })
  maxZones?: number | null;

  @Field(() => Int, { nullable: true })
  maxRecordsPerZone?: number | null;
}

@InputType({ description: 'A field left out stays as it is; null returns it to the default; 0 means no limit.' })
export class ApiKeyRateInput {
  @Field(() => Int, { nullable: true })
  ratePerSecond?: number | null;

  @Field(() => Int, { nullable: true })
  rateBurst?: number | null;
}
