import { IsNotEmpty, MaxLength } from 'class-validator';
import { Field, ID, InputType, Int } from 'type-graphql';

@InputType({ description: 'A health check (docs/steering.md).' })
export class SteeringCheckInput {
  @Field({ description: 'Its name, unique in the zone: letters, digits, dot, dash, underscore.' })
  @IsNotEmpty({ message: 'name is required' })
  @MaxLength(63, { message: 'name must be at most 63 characters' })
  name!: string;

  @Field({ description: 'http, https, tcp, or external (its status reported through reportSteeringStatus).' })
  protocol!: string;

  @Field(() => String, { nullable: true, description: 'The IP address to probe; none for an external check.' })
  @MaxLength(64, { message: 'address must be at most 64 characters' })
  address?: string | null;

  @Field(() => Int, { nullable: true, description: 'Default 80 (http), 443 (https); a TCP check names one.' })
  port?: number | null;

  @Field(() => String, { nullable: true, description: 'HTTP(S): the Host header and TLS server name.' })
  @MaxLength(253, { message: 'host must be at most 253 characters' })
  host?: string | null;

  @Field(() => String, { nullable: true, description: 'HTTP(S): the path (default /).' })
  @MaxLength(1024, { message: 'path must be at most 1024 characters' })
  path?: string | null;

  @Field(() => Int, { nullable: true, description: 'Default 200.' })
  statusMin?: number | null;

  @Field(() => Int, { nullable: true, description: 'Default 399.' })
  statusMax?: number | null;

  @Field(() => String, { nullable: true, description: 'HTTP(S): a text the body must contain.' })
  @MaxLength(255, { message: 'bodyContains must be at most 255 characters' })
  bodyContains?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'HTTPS: verify the certificate (default false).' })
  verifyTls?: boolean | null;

  @Field(() => Int, { nullable: true, description: '1–300 seconds; none: STEERING_CHECK_INTERVAL.' })
  intervalSeconds?: number | null;
}

@InputType({
  description:
    'A zone’s defaults for the checks made for new members of octoDNS dynamic records (docs/steering.md); a field not given is not set (the service’s default applies). The whole set is replaced.',
})
export class SteeringDefaultsInput {
  @Field(() => String, { nullable: true, description: 'http, https or tcp (none: https).' })
  protocol?: string | null;

  @Field(() => Int, { nullable: true, description: 'None: 443 (https) or 80 (http); a TCP default names one.' })
  port?: number | null;

  @Field(() => String, { nullable: true, description: 'HTTP(S): the Host header and TLS server name (none: the record’s name).' })
  @MaxLength(253, { message: 'host must be at most 253 characters' })
  host?: string | null;

  @Field(() => String, { nullable: true, description: 'HTTP(S): the path (none: /_dns).' })
  @MaxLength(1024, { message: 'path must be at most 1024 characters' })
  path?: string | null;

  @Field(() => Int, { nullable: true, description: 'None: 200.' })
  statusMin?: number | null;

  @Field(() => Int, { nullable: true, description: 'None: 399.' })
  statusMax?: number | null;

  @Field(() => String, { nullable: true, description: 'HTTP(S): a text the body must contain.' })
  @MaxLength(255, { message: 'bodyContains must be at most 255 characters' })
  bodyContains?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'HTTPS: verify the certificate (none: not verified).' })
  verifyTls?: boolean | null;

  @Field(() => Int, { nullable: true, description: '1–300 seconds; none: STEERING_CHECK_INTERVAL.' })
  intervalSeconds?: number | null;
}

@InputType()
export class SteeringMemberInput {
  @Field({ description: 'An address (A, AAAA) or a target (CNAME).' })
  @MaxLength(1024, { message: 'value must be at most 1024 characters' })
  value!: string;

  @Field(() => ID, { nullable: true, description: 'A check of the zone the member follows.' })
  checkId?: string | null;

  @Field(() => String, { nullable: true, description: 'up, down or obey (default).' })
  admin?: string | null;

  @Field(() => Int, { nullable: true, description: 'Stored, not served (default 1).' })
  weight?: number | null;
}

@InputType()
export class SteeringPoolInput {
  @Field(() => Int, { nullable: true, description: 'Default 1.' })
  minHealthy?: number | null;

  @Field(() => [SteeringMemberInput])
  members!: SteeringMemberInput[];
}

@InputType({
  description:
    'A rule by the asker’s network or country (docs/steering.md, «Rules by network and country»): the askers in its networks are answered its pools, through a view of steering’s own that any secondary with views serves. A view is chosen by the address the query comes from (the resolver’s), not by EDNS Client Subnet.',
})
export class SteeringRuleInput {
  @Field(() => [String], { nullable: true, description: 'CIDR blocks (IPv4 or IPv6).' })
  subnets?: string[] | null;

  @Field(() => [String], {
    nullable: true,
    description:
      'As octoDNS writes them: a continent (EU) or a continent and a country (EU-DE); their networks are the IPtoASN database’s.',
  })
  geos?: string[] | null;

  @Field(() => [SteeringPoolInput], { nullable: true, description: 'The rule’s pools, in fallback order (then the RRset’s backup).' })
  pools?: SteeringPoolInput[] | null;
}

@InputType({ description: 'A steered RRset (docs/steering.md).' })
export class SteeredRrsetInput {
  @Field({ description: "Owner, relative to the zone ('@' = apex) or absolute inside it." })
  @MaxLength(1024, { message: 'owner must be at most 1024 characters' })
  owner!: string;

  @Field({ description: 'A, AAAA or CNAME.' })
  type!: string;

  @Field(() => Int, { nullable: true, description: 'One of the allowed TTLs (default 60).' })
  ttl?: number | null;

  @Field(() => [SteeringPoolInput], { description: 'In fallback order.' })
  pools!: SteeringPoolInput[];

  @Field(() => Int, { nullable: true, description: 'Default 8.' })
  maxAnswers?: number | null;

  @Field(() => [String], { nullable: true })
  backup?: string[] | null;

  @Field(() => String, { nullable: true, description: 'backup (default) or empty.' })
  allDown?: string | null;

  @Field(() => [SteeringRuleInput], {
    nullable: true,
    description:
      'Answers by the asker’s network or country, the first matching rule first; the RRset’s own pools answer everyone else. Rules whose networks overlap without being the same are refused (STEERING_RULES_OVERLAP).',
  })
  rules?: SteeringRuleInput[] | null;
}
