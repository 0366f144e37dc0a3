import { SerialScalar } from '../scalars/serial';
import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { MaxLength } from 'class-validator';
import { ChangeAuthor } from './history.type';

export enum OverlayActionEnum {
  REPLACE = 'replace',
  HIDE = 'hide',
}
registerEnumType(OverlayActionEnum, {
  name: 'OverlayAction',
  description: 'What a view does to an RRset of a zone (docs/views.md): REPLACE with its own records, or HIDE it.',
});

export enum ViewRecordOverlay {
  BASE = 'base',
  REPLACE = 'replace',
  HIDE = 'hide',
}
registerEnumType(ViewRecordOverlay, {
  name: 'ViewRecordOverlay',
  description:
    "A view's record: the base zone's (BASE), the view's own in place of the base's (REPLACE), or the base's hidden in the view (HIDE).",
});

export enum SecondarySoftwareEnum {
  BIND = 'bind',
  KNOT = 'knot',
  NSD = 'nsd',
  POWERDNS = 'powerdns',
}
registerEnumType(SecondarySoftwareEnum, {
  name: 'SecondarySoftware',
  description:
    'A standard secondary whose configuration is printed, for a view (docs/views.md: BIND holds every view in one server; Knot DNS, NSD and PowerDNS run one instance per view) or a nameserver set (docs/scale.md).',
});

@ObjectType('View', {
  simpleResolvers: true,
  description:
    'A view (docs/views.md): split horizon as an overlay on every zone, served to the secondaries whose requests are signed with its TSIG key.',
})
export class ViewType {
  @Field(() => ID)
  id!: number;

  @Field()
  name!: string;

  @Field(() => [String], { description: "The client networks (CIDR) a secondary's `match-clients` serves this view to." })
  networks!: string[];

  @Field(() => Int, { description: 'The order of the views in a secondary’s configuration: lower first.' })
  precedence!: number;

  @Field(() => ID, { description: "The operator's TSIG key whose requests read this view's zones and catalog." })
  tsigKeyId!: number;

  @Field({ description: 'The TSIG key’s name.' })
  tsigKeyName!: string;

  @Field(() => [String], { description: "The view's secondaries (address or address:port), sent NOTIFYs signed with the view's key." })
  notify!: string[];

  @Field()
  createdAt!: Date;

  @Field(() => String, {
    nullable: true,
    description:
      'A view of steering’s own (docs/steering.md, «Rules by network and country»): the subnets and geos of the rules it serves, from which its networks are computed; null: the operator’s view.',
  })
  steeringNetworks!: string | null;
}

@InputType()
export class ViewInput {
  @Field({ description: 'Lower-case letters, digits, - and _ (1 to 63).' })
  @MaxLength(63, { message: 'name must be at most 63 characters' })
  name!: string;

  @Field(() => [String], { nullable: true, description: 'Client networks (CIDR).' })
  networks?: string[];

  @Field(() => Int, { nullable: true, description: 'Lower first; 0 when not given.' })
  precedence?: number;

  @Field(() => ID, { description: "An active TSIG key of the operator's (no user), not another view's." })
  tsigKeyId!: string;

  @Field(() => [String], { nullable: true, description: 'Secondaries to NOTIFY: address or address:port.' })
  notify?: string[];
}

@InputType()
export class ViewUpdateInput {
  @Field({ nullable: true })
  @MaxLength(63, { message: 'name must be at most 63 characters' })
  name?: string;

  @Field(() => [String], { nullable: true })
  networks?: string[];

  @Field(() => Int, { nullable: true })
  precedence?: number;

  @Field(() => ID, { nullable: true })
  tsigKeyId?: string;

  @Field(() => [String], { nullable: true })
  notify?: string[];
}

@InputType()
export class OverlayRecordInput {
  @Field()
  rdata!: string;

  @Field(() => Int, { nullable: true, description: 'The RRset’s TTL (the first record’s); 3600 when not given.' })
  ttl?: number;
}

@ObjectType('ViewOverlayRecord', { simpleResolvers: true })
export class ViewOverlayRecordType {
  @Field(() => Int)
  ttl!: number;

  @Field()
  rdata!: string;
}

@ObjectType('ViewOverlay', { simpleResolvers: true, description: 'One RRset a view replaces or hides in a zone.' })
export class ViewOverlayType {
  @Field()
  zone!: string;

  @Field()
  view!: string;

  @Field({ description: 'Relative to the zone; @ the apex.' })
  owner!: string;

  @Field()
  type!: string;

  @Field(() => OverlayActionEnum)
  action!: OverlayActionEnum;

  @Field(() => [ViewOverlayRecordType], { description: "The view's records (REPLACE); none for HIDE." })
  records!: ViewOverlayRecordType[];
}

export enum ViewChangeAction {
  REPLACE = 'replace',
  HIDE = 'hide',
  CLEAR = 'clear',
}
registerEnumType(ViewChangeAction, {
  name: 'ViewChangeAction',
  description: "What an overlay change did: REPLACE or HIDE an RRset in the view, or CLEAR the view's overlay of it (the base's again).",
});

@ObjectType('ViewChange', {
  simpleResolvers: true,
  description:
    "One overlay change of a view in a zone, as its view.changed event told it (the view's history: an overlay change writes no journal row).",
})
export class ViewChangeType {
  @Field(() => ID, { description: 'The event’s id (a page’s `before`).' })
  id!: number;

  @Field()
  createdAt!: Date;

  @Field({ description: 'Relative to the zone; @ the apex.' })
  owner!: string;

  @Field()
  type!: string;

  @Field(() => ViewChangeAction)
  action!: ViewChangeAction;

  @Field(() => [ViewOverlayRecordType], { description: "The view's records after a REPLACE; none for HIDE and CLEAR." })
  records!: ViewOverlayRecordType[];

  @Field(() => SerialScalar, { description: "The view's serial of the zone that the change stepped to." })
  serial!: number;

  @Field(() => ChangeAuthor, { nullable: true, description: 'Who made it; null for a change recorded before events named their author.' })
  author!: ChangeAuthor | null;
}

@ObjectType('ViewRecord', { simpleResolvers: true, description: "A record of a view's zone, and what the view's overlay does to it." })
export class ViewRecordType {
  @Field()
  owner!: string;

  @Field()
  type!: string;

  @Field(() => Int)
  ttl!: number;

  @Field()
  rdata!: string;

  @Field(() => ViewRecordOverlay)
  overlay!: ViewRecordOverlay;
}

@ObjectType('ViewRrsetDiff', {
  simpleResolvers: true,
  description: 'An RRset a view replaces or hides: the base’s records and the view’s.',
})
export class ViewRrsetDiffType {
  @Field({ description: 'Relative to the zone; @ the apex.' })
  owner!: string;

  @Field()
  type!: string;

  @Field(() => OverlayActionEnum)
  action!: OverlayActionEnum;

  @Field(() => [ViewOverlayRecordType], { description: 'The base zone’s records of the RRset (before); none where the view adds it.' })
  base!: ViewOverlayRecordType[];

  @Field(() => [ViewOverlayRecordType], { description: 'The view’s records of it (after); none where the view hides it.' })
  view!: ViewOverlayRecordType[];
}

@ObjectType('ViewZone', { simpleResolvers: true, description: 'A zone as a view serves it.' })
export class ViewZoneType {
  @Field()
  zone!: string;

  @Field()
  view!: string;

  @Field(() => SerialScalar, { description: "The view's serial of the zone (the base's while the view has no overlay in it)." })
  serial!: number;

  @Field(() => [ViewRecordType])
  records!: ViewRecordType[];

  @Field(() => [ViewRrsetDiffType], {
    description: 'The view against the base: only the RRsets the view replaces or hides, the base’s records of each and the view’s.',
  })
  diff!: ViewRrsetDiffType[];
}
