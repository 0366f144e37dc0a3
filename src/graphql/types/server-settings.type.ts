import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('TtlRange', {
  simpleResolvers: true,
  description: 'Allowed TTLs from min to max seconds, both included (one value: min = max).',
})
export class TtlRangeType {
  @Field(() => Int)
  min!: number;

  @Field(() => Int)
  max!: number;
}

@ObjectType('ServerSettings', {
  simpleResolvers: true,
  description: 'The service’s settings a client needs to offer valid input (read-only).',
})
export class ServerSettingsType {
  @Field(() => [TtlRangeType], {
    description:
      'The TTLs this API accepts (ALLOWED_TTLS_BEYOND_REST; the REST layer: ALLOWED_TTLS), ascending; empty: any TTL from 0 to 2147483647 (RFC 2181 §8).',
  })
  allowedTtls!: TtlRangeType[];

  @Field(() => Int, {
    description:
      'The longest RRset comment (`comment` of a record or a change, a zone file line’s comment) in characters: MAX_COMMENT_LENGTH. The PowerDNS API keeps PowerDNS’s own bounds.',
  })
  maxCommentLength!: number;
}
