import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum QueryStepEnum {
  MINUTE = 60,
  HOUR = 3600,
  DAY = 86400,
}
registerEnumType(QueryStepEnum, {
  name: 'QueryStep',
  description:
    'A bucket’s length. Minutes are kept ANALYTICS_MINUTES_KEEP_HOURS, hours ANALYTICS_HOURS_KEEP_DAYS, days ANALYTICS_DAYS_KEEP_DAYS: a window reaching further back is answered in the longer step (QueryStats.step).',
});

export enum QueryDimensionEnum {
  RCODE = 'rcode',
  TYPE = 'type',
  OWNER = 'owner',
  SECONDARY = 'secondary',
}
registerEnumType(QueryDimensionEnum, { name: 'QueryDimension', description: 'What a bucket’s counts are split by.' });

/** an account's dimensions: no OWNER (an account's owners are every zone's, unbounded), and ZONE */
export enum AccountQueryDimensionEnum {
  RCODE = 'rcode',
  TYPE = 'type',
  SECONDARY = 'secondary',
  ZONE = 'zone',
}
registerEnumType(AccountQueryDimensionEnum, {
  name: 'AccountQueryDimension',
  description:
    'What the buckets of an account’s totals are split by. No OWNER: across all of an account’s zones the owners are unbounded (Domain.queries splits one zone by owner).',
});

@ObjectType('QueryCount', {
  simpleResolvers: true,
  description: 'The answers of one bucket with one value of each dimension asked for (the others null).',
})
export class QueryCountType {
  @Field(() => String, { nullable: true, description: 'The response code: NOERROR, NXDOMAIN, SERVFAIL, REFUSED, … (RCODEn beyond).' })
  rcode!: string | null;

  @Field(() => String, { nullable: true, description: 'The question’s type.' })
  type!: string | null;

  @Field(() => String, {
    nullable: true,
    description: "The owner, relative to the zone ('@' its apex); '' counts the owners beyond ANALYTICS_NAMES_PER_MINUTE in a minute.",
  })
  owner!: string | null;

  @Field(() => String, { nullable: true, description: 'The secondary that answered (its dnstap identity, else its address).' })
  secondary!: string | null;

  @Field(() => String, { nullable: true, description: 'The zone (User.queries split by ZONE); null otherwise.' })
  zone?: string | null;

  @Field(() => Float, { description: 'Answers (a whole number).' })
  count!: number;
}

@ObjectType('QueryBucket', { simpleResolvers: true, description: 'One step of a window: its answers and how much of it is known.' })
export class QueryBucketType {
  @Field()
  start!: Date;

  @Field(() => Float, {
    nullable: true,
    description: 'All answers in the bucket; null: a gap (no secondary sent dnstap then): unknown, not zero.',
  })
  total!: number | null;

  @Field(() => Float, {
    description:
      'The share of the bucket the secondaries expected to send were connected to the collector (1: all of it); below 1 the counts are a floor.',
  })
  coverage!: number;

  @Field(() => [String], { description: 'The secondaries expected that were not connected for all of the bucket.' })
  missing!: string[];

  @Field(() => Float, {
    description: 'Frames the collector received but could not count (malformed, or dropped while the database was away).',
  })
  droppedFrames!: number;

  @Field(() => [QueryCountType], { description: 'The answers split by the dimensions asked for (`by`).' })
  counts!: QueryCountType[];
}

@ObjectType('QueryStats', {
  simpleResolvers: true,
  description: 'A zone’s (or an account’s zones’) answers over a window, counted from the secondaries’ dnstap (docs/analytics.md).',
})
export class QueryStatsType {
  @Field({ description: 'The window’s start, aligned on the step.' })
  since!: Date;

  @Field()
  until!: Date;

  @Field(() => Int, { description: 'Seconds per bucket: as asked, or longer where the window reaches past the finer resolution kept.' })
  step!: number;

  @Field(() => [QueryBucketType])
  buckets!: QueryBucketType[];
}

@ObjectType('QueriedName', { simpleResolvers: true, description: 'An owner of a zone and its answers over a window.' })
export class QueriedNameType {
  @Field({ description: "Relative to the zone ('@' its apex)." })
  owner!: string;

  @Field(() => Float)
  count!: number;
}
