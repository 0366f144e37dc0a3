import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { DomainType } from './domain.type';

export enum AttentionKind {
  SECONDARIES_BEHIND = 'SECONDARIES_BEHIND',
  TRANSFER_FAILED = 'TRANSFER_FAILED',
  DS_AT_PARENT = 'DS_AT_PARENT',
  HEALTH = 'HEALTH',
  STEERING_HELD = 'STEERING_HELD',
}
registerEnumType(AttentionKind, {
  name: 'AttentionKind',
  description:
    'Why a zone needs attention: SECONDARIES_BEHIND, its nameserver set’s secondaries fail or lag (Domain.propagation); TRANSFER_FAILED, a SECONDARY zone’s refresh from its primaries fails or it expired (Domain.secondary); DS_AT_PARENT, a signed zone waits for its DS to be published (or removed) at the parent (Domain.dnssec); HEALTH, the last health check found something (Domain.health); STEERING_HELD, a failover check is held where it is (the panic freeze, or every vantage that probed it isolated) or probed by an isolated vantage whose votes are not counted (Domain.steeredRrsets, steeringVantages).',
});

@ObjectType('AttentionItem', { simpleResolvers: true, description: 'One zone that needs attention, and why.' })
export class AttentionItemType {
  @Field(() => DomainType)
  zone!: DomainType;

  @Field(() => AttentionKind)
  kind!: AttentionKind;

  @Field(() => Date, {
    nullable: true,
    description:
      'Since when, as far as the service knows: the oldest failing status check; the last transfer that worked (or the zone’s creation); the signing or the new key; the oldest health finding still seen.',
  })
  since!: Date | null;

  @Field({ description: 'The facts in words (the servers and their errors, the last error, what the parent must do).' })
  detail!: string;
}

@ObjectType('AttentionList', {
  simpleResolvers: true,
  description: 'The zones of one kind of attention: the first ones (oldest first) and how many in all.',
})
export class AttentionListType {
  @Field(() => Int, { description: 'How many zones the caller may see are in this list, beyond the items returned too.' })
  totalCount!: number;

  @Field(() => [AttentionItemType])
  items!: AttentionItemType[];
}

@ObjectType('Attention', {
  simpleResolvers: true,
  description: 'What needs attention across the zones the caller may see (docs/console.md, «Home»): one list per kind.',
})
export class AttentionType {
  @Field(() => AttentionListType)
  secondariesBehind!: AttentionListType;

  @Field(() => AttentionListType)
  failedTransfers!: AttentionListType;

  @Field(() => AttentionListType, { description: 'Signed zones waiting for their parent’s DS (published, or removed when made unsigned).' })
  dsAtParent!: AttentionListType;

  @Field(() => AttentionListType, { description: 'Zones whose last health check found something (warning or critical; Domain.health).' })
  health!: AttentionListType;

  @Field(() => AttentionListType, {
    description:
      'Zones whose failover is held: a check failing but held up by the panic freeze, a check whose every vantage is isolated, or a check probed by an isolated vantage (docs/steering.md).',
  })
  steering!: AttentionListType;
}
