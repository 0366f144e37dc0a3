import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { MaxLength } from 'class-validator';

@ObjectType('NameserverSet', {
  simpleResolvers: true,
  description:
    'A named fleet of secondaries with its NS names and its own catalog zone (RFC 9432, docs/transfers.md): each zone is in one. `default` is the settings’ (SECONDARIES, DEFAULT_NS, CATALOG_ZONE).',
})
export class NameserverSetType {
  @Field(() => ID)
  id!: number;

  @Field()
  name!: string;

  @Field({ description: 'The settings’ set (SECONDARIES, DEFAULT_NS, CATALOG_ZONE): changed there, never deleted.' })
  isDefault!: boolean;

  @Field(() => [String], {
    description: 'Its secondaries as address:port: NOTIFYed for its zones and its catalog, allowed to transfer them.',
  })
  secondaries!: string[];

  @Field(() => [String], {
    description: 'The NS names of its zones (absolute): a new zone’s default NS records, and a moved zone’s when they were the old set’s.',
  })
  nsNames!: string[];

  @Field({ description: 'Its catalog zone: lists its zones only, and only its secondaries may transfer it.' })
  catalogZone!: string;

  @Field(() => Int, { description: 'The zones in it (0 when read through a zone).' })
  zoneCount!: number;
}

@InputType()
export class NameserverSetInput {
  @Field({ description: 'Lower-case letters, digits and inner hyphens; `default` is the settings’.' })
  @MaxLength(63, { message: 'name must be at most 63 characters' })
  name!: string;

  @Field(() => [String], { description: 'Secondaries as address:port (or an address: port 53).' })
  secondaries!: string[];

  @Field(() => [String], { description: 'NS names of its zones, 1 to 13 host names.' })
  nsNames!: string[];

  @Field({ description: 'Its catalog zone’s name (unique; not CATALOG_ZONE). Fixed once created: its secondaries are configured with it.' })
  @MaxLength(253, { message: 'catalogZone must be at most 253 characters' })
  catalogZone!: string;
}

@InputType()
export class NameserverSetUpdateInput {
  @Field(() => [String], { description: 'Secondaries as address:port (or an address: port 53); its zones’ status rows follow.' })
  secondaries!: string[];

  @Field(() => [String], {
    description: 'NS names of its zones, 1 to 13 host names (existing zones keep theirs, unless `zonesFollow`).',
  })
  nsNames!: string[];

  @Field(() => Boolean, {
    nullable: true,
    defaultValue: false,
    description:
      'True: the set’s zones whose apex NS are exactly its NS names before this change take the new ones, each as a change of its own (serial, journal, NOTIFY), in the background (`NameserverSet.nsFollow` says how far); a zone’s own NS are left. One at a time per set: NS_FOLLOW_IN_PROGRESS while the last one goes on.',
  })
  zonesFollow?: boolean | null;
}

@ObjectType('NsFollowRefusal', { simpleResolvers: true, description: 'A zone whose rules refused its new NS names: it kept its own.' })
export class NsFollowRefusalType {
  @Field()
  zone!: string;

  @Field({ description: 'The refusal’s error code (the zone checks’, as a write of the zone would get).' })
  code!: string;
}

@ObjectType('NsFollow', {
  simpleResolvers: true,
  description:
    'A nameserver set’s zones taking its new NS names (`updateNameserverSet(input: {zonesFollow: true})`), as far as they have come; it ends with the audit event `nameserver-set-ns-followed`.',
})
export class NsFollowType {
  @Field(() => [String], { description: 'The set’s NS names before the change: the zones that had exactly these follow.' })
  fromNames!: string[];

  @Field(() => [String], { description: 'The new NS names.' })
  toNames!: string[];

  @Field()
  startedAt!: Date;

  @Field(() => Int, { description: 'Zones whose apex NS were replaced so far.' })
  zonesChanged!: number;

  @Field(() => Int, { description: 'Zones that kept theirs so far: NS of their own, or a write their rules refused (`refused`).' })
  zonesKept!: number;

  @Field(() => Int, { description: 'Zones of the set not reached yet.' })
  zonesLeft!: number;

  @Field(() => [NsFollowRefusalType], { description: 'The zones whose rules refused the new names (the first 100).' })
  refused!: NsFollowRefusalType[];
}
