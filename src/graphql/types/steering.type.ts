import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';

/** what a check or a member is, in one word (services/steering/decision.ts, checkCondition and memberCondition) */
export enum SteeringCondition {
  UNKNOWN = 'unknown',
  UP = 'up',
  DOWN = 'down',
  FLAPPING = 'flapping',
  FROZEN = 'frozen',
  NO_SOUND_VANTAGE = 'no-sound-vantage',
  PAUSED = 'paused',
  FORCED_UP = 'forced-up',
}
registerEnumType(SteeringCondition, {
  name: 'SteeringCondition',
  description:
    'What a check or a member is (docs/steering.md): UNKNOWN (not decided yet: served), UP, DOWN, FLAPPING (held down until its probes agree for 5 minutes), FROZEN (its probes fail, but the panic freeze holds it up: still served, never shown as up), NO_SOUND_VANTAGE (every vantage that probed it is isolated: its state is held where it was), and for a member PAUSED (admin down) or FORCED_UP (admin up).',
});

@ObjectType('SteeringVote', {
  simpleResolvers: true,
  description:
    'One vantage’s view of a probed check (docs/steering.md, «Vantages and the quorum»): its last probe and its runs; a check goes down or up when the votes of the sound vantages reach STEERING_QUORUM.',
})
export class SteeringVoteType {
  @Field({ description: 'The vantage (STEERING_VANTAGE of the prober that probed).' })
  vantage!: string;

  @Field({ description: 'The vantage is isolated: this vote is not counted.' })
  isolated!: boolean;

  @Field({ description: 'The last probe is within two of the check’s intervals: an older vote counts for nothing.' })
  recent!: boolean;

  @Field(() => Boolean, { nullable: true, description: 'Whether the vantage’s last probe passed; none: not probed from there yet.' })
  lastOk!: boolean | null;

  @Field(() => String, { nullable: true, description: 'Why the vantage’s last probe failed.' })
  lastError!: string | null;

  @Field(() => Int, { nullable: true, description: 'The vantage’s last probe’s time to its answer, in milliseconds.' })
  latencyMs!: number | null;

  @Field(() => Date, { nullable: true, description: 'When the vantage last probed it.' })
  checkedAt!: Date | null;

  @Field(() => Int, { description: 'Passed probes in a row from this vantage (STEERING_RISE of them vote up).' })
  passes!: number;

  @Field(() => Int, { description: 'Failed probes in a row from this vantage (STEERING_FALL of them vote down).' })
  failures!: number;
}

@ObjectType('SteeringVantage', {
  simpleResolvers: true,
  description:
    'A place the checks are probed from (a prober process’s STEERING_VANTAGE, docs/steering.md): isolated while it fails what the other vantages pass or its canaries fail, its votes then not counted.',
})
export class SteeringVantageType {
  @Field()
  name!: string;

  @Field({ description: 'When a prober of this vantage last said it is alive.' })
  seenAt!: Date;

  @Field({ description: 'Its votes are not counted.' })
  isolated!: boolean;

  @Field(() => String, { nullable: true, description: 'Why it is isolated.' })
  isolatedReason!: string | null;

  @Field(() => Date, { nullable: true, description: 'Since when it is isolated.' })
  isolatedSince!: Date | null;

  @Field({
    description:
      'Its own probes are in a panic freeze (more than half of all checks failing, at least STEERING_PANIC_MIN_CHECKS across three networks): while it decides alone, nothing is taken down.',
  })
  panic!: boolean;
}

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

  @Field(() => Date, {
    nullable: true,
    description: 'Since when its state is held (condition FROZEN or NO_SOUND_VANTAGE); none: it is not.',
  })
  heldSince!: Date | null;
}

@ObjectType('SteeringDefaults', {
  simpleResolvers: true,
  description:
    'A zone’s defaults for the check made for each new member of an octoDNS dynamic record (docs/steering.md): each field null where not set, the service’s default applying (octoDNS’s health check: HTTPS, port 443, path /_dns, the record’s name as Host). A check that exists keeps what it has.',
})
export class SteeringDefaultsType {
  @Field(() => String, { nullable: true, description: 'http, https or tcp; none: https.' })
  protocol!: string | null;

  @Field(() => Int, { nullable: true, description: 'None: 443 (https) or 80 (http); a TCP default names one.' })
  port!: number | null;

  @Field(() => String, { nullable: true, description: 'HTTP(S): the Host header and TLS server name (SNI); none: the record’s name.' })
  host!: string | null;

  @Field(() => String, { nullable: true, description: 'HTTP(S): the path asked for; none: /_dns.' })
  path!: string | null;

  @Field(() => Int, { nullable: true, description: 'HTTP(S): the lowest status that passes; none: 200.' })
  statusMin!: number | null;

  @Field(() => Int, { nullable: true, description: 'HTTP(S): the highest status that passes; none: 399.' })
  statusMax!: number | null;

  @Field(() => String, { nullable: true, description: 'HTTP(S): a text the body must contain; none: any body.' })
  bodyContains!: string | null;

  @Field(() => Boolean, { nullable: true, description: 'HTTPS: verify the certificate; none: not verified.' })
  verifyTls!: boolean | null;

  @Field(() => Int, { nullable: true, description: 'Seconds between two probes, 1–300; none: STEERING_CHECK_INTERVAL.' })
  intervalSeconds!: number | null;
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

  @Field({
    description:
      'Its admin status, then its check’s, say it is healthy (unknown counts as up); never while its check is held (condition FROZEN or NO_SOUND_VANTAGE), though it is still served then.',
  })
  healthy!: boolean;

  @Field(() => SteeringCondition, { description: 'What it is, in one word: its admin status, then its check’s condition.' })
  condition!: SteeringCondition;

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
    'An A, AAAA or CNAME RRset whose records the service decides from health checks (docs/steering.md) and publishes as ordinary records: the healthy members of the first pool with enough of them, else the next pool, else the backup values (or nothing). Any other write that would change its records is refused with RRSET_STEERED, as a locked RRset’s is with RRSET_PROTECTED.',
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
