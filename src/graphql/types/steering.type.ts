import { Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType('SteeringCheck', {
  simpleResolvers: true,
  description:
    'A health check of a zone (docs/steering.md): an HTTP, HTTPS or TCP probe of one endpoint, every STEERING_CHECK_INTERVAL seconds or its own interval, or an external check whose status is reported (reportSteeringStatus), with its live state.',
})
export class SteeringCheckType {
  @Field(() => ID)
  id!: number;

  @Field({ description: 'Its name, unique in the zone.' })
  name!: string;

  @Field({ description: 'http, https, tcp, or external (reported through reportSteeringStatus, not probed).' })
  protocol!: string;

  @Field({ description: 'The IP address probed (the outbound rule applies: STEERING_ALLOW_NETWORKS); empty for an external check.' })
  address!: string;

  @Field(() => Int, { description: 'The port probed; 0 for an external check.' })
  port!: number;

  @Field(() => String, { nullable: true, description: 'HTTP(S): the Host header and the TLS server name (SNI); none: the address.' })
  host!: string | null;

  @Field({ description: 'HTTP(S): the path asked for.' })
  path!: string;

  @Field(() => Int, { description: 'HTTP(S): the lowest status that passes (200 unless set).' })
  statusMin!: number;

  @Field(() => Int, { description: 'HTTP(S): the highest status that passes (399 unless set).' })
  statusMax!: number;

  @Field(() => String, { nullable: true, description: 'HTTP(S): a text the body’s first 5,120 bytes must contain.' })
  bodyContains!: string | null;

  @Field({ description: 'HTTPS: the certificate is verified (not unless asked, as Route 53’s checks do not).' })
  verifyTls!: boolean;

  @Field(() => Int, { nullable: true, description: 'Seconds between two probes, 1–300; none: STEERING_CHECK_INTERVAL.' })
  intervalSeconds!: number | null;

  @Field({
    description:
      'unknown (not decided yet: its members are served), up or down: STEERING_FALL failed probes in a row take it down, STEERING_RISE passed ones bring it up, damped against flapping.',
  })
  status!: string;

  @Field({ description: 'Since when the status is what it is.' })
  since!: Date;

  @Field({ description: 'Flapping (more than 3 changes in 5 minutes): held down until its probes agree for 5 minutes.' })
  pinned!: boolean;

  @Field(() => Boolean, { nullable: true, description: 'Whether the last probe passed; none: not probed yet.' })
  lastOk!: boolean | null;

  @Field(() => String, { nullable: true, description: 'Why the last probe failed.' })
  lastError!: string | null;

  @Field(() => Int, { nullable: true, description: 'The last probe’s time to its answer, in milliseconds.' })
  latencyMs!: number | null;

  @Field(() => Date, {
    nullable: true,
    description: 'When it was last probed (an external check: its last report, or its lease seen to run out).',
  })
  checkedAt!: Date | null;

  @Field(() => Date, {
    nullable: true,
    description: 'An external check: until when its last report holds; after it the check counts as failing unless reported again.',
  })
  leaseUntil!: Date | null;
}

@ObjectType('SteeringMember', { simpleResolvers: true, description: 'One value of a pool, and whether it is served when its pool is.' })
export class SteeringMemberType {
  @Field({ description: 'The address (A, AAAA) or target (CNAME).' })
  value!: string;

  @Field(() => ID, { nullable: true, description: 'The check it follows; none: it is up unless its admin status says down.' })
  checkId!: number | null;

  @Field({ description: 'up (served whatever its check says), down (paused) or obey (its check decides).' })
  admin!: string;

  @Field(() => Int, { description: 'Stored, not served: a standard secondary answers every record of an RRset.' })
  weight!: number;

  @Field({ description: 'Served when its pool is: its admin status, then its check’s (unknown counts as up).' })
  healthy!: boolean;

  @Field(() => SteeringCheckType, { nullable: true, description: 'The check it follows, with its live state.' })
  check!: SteeringCheckType | null;
}

@ObjectType('SteeringChange', {
  simpleResolvers: true,
  description: 'A change of what a steered RRset serves (its steering.changed event).',
})
export class SteeringChangeType {
  @Field()
  at!: Date;

  @Field(() => [String], { description: 'What it serves from then on.' })
  served!: string[];

  @Field(() => [String], { description: 'What it served before.' })
  previous!: string[];

  @Field({ description: 'Why: pool N (the first with enough healthy members), backup or empty.' })
  source!: string;
}

@ObjectType('SteeringPool', { simpleResolvers: true })
export class SteeringPoolType {
  @Field(() => Int, { description: 'The pool is served when at least this many of its members are healthy; else the next pool.' })
  minHealthy!: number;

  @Field(() => [SteeringMemberType])
  members!: SteeringMemberType[];
}

@ObjectType('SteeringRule', {
  simpleResolvers: true,
  description:
    'A rule by the asker’s network or country (docs/steering.md, «Rules by network and country»), compiled into a view of steering’s own: the askers in its networks are answered its pools.',
})
export class SteeringRuleType {
  @Field(() => [String], { description: 'CIDR blocks, as stored (host bits dropped).' })
  subnets!: string[];

  @Field(() => [String], { description: 'Continents and countries, as octoDNS writes them (EU, EU-DE).' })
  geos!: string[];

  @Field(() => [SteeringPoolType], { description: 'In fallback order (then the RRset’s backup).' })
  pools!: SteeringPoolType[];

  @Field(() => String, {
    nullable: true,
    description:
      'The view of steering’s own that serves the rule (its networks: `views`; its secondary’s configuration: `viewSecondaryConfig`).',
  })
  view!: string | null;
}

@ObjectType('SteeredRrset', {
  simpleResolvers: true,
  description:
    'An A, AAAA or CNAME RRset whose records the service decides from health checks (docs/steering.md) and publishes as ordinary records: the healthy members of the first pool with enough of them, else the next pool, else the backup values (or nothing).',
})
export class SteeredRrsetType {
  @Field(() => ID)
  id!: number;

  domainId!: number;

  @Field({ description: 'The zone.' })
  zone!: string;

  @Field({ description: "Owner, relative to the zone ('@' = apex)." })
  owner!: string;

  @Field({ description: 'A, AAAA or CNAME.' })
  type!: string;

  @Field(() => Int)
  ttl!: number;

  @Field(() => [SteeringPoolType], { description: 'In fallback order.' })
  pools!: SteeringPoolType[];

  @Field(() => Int, { description: 'At most this many records are served (a CNAME: one).' })
  maxAnswers!: number;

  @Field(() => [String], { description: 'Served when no pool has enough healthy members (allDown backup).' })
  backup!: string[];

  @Field({ description: 'backup (the default: fail open) or empty: what is served when no pool has enough healthy members.' })
  allDown!: string;

  @Field(() => [String], { description: 'The records served now (as last written).' })
  served!: string[];

  @Field(() => [SteeringRuleType], {
    description: 'Answers by the asker’s network or country, first match first; none: one answer for every asker.',
  })
  rules!: SteeringRuleType[];
}
