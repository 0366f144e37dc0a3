import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { SerialScalar } from '../scalars/serial';

@ObjectType('ZoneSecondary', {
  simpleResolvers: true,
  description:
    'An extra secondary of a zone (a customer’s own server, docs/transfers.md): sent the zone’s NOTIFYs, and allowed to transfer it from its address with its TSIG key.',
})
export class ZoneSecondaryType {
  @Field({ description: 'The server’s IP address (NOTIFYs go there; transfers are allowed from there).' })
  address!: string;

  @Field(() => Int, { description: 'The port its NOTIFYs go to (53 unless given).' })
  port!: number;

  @Field(() => ID, { description: 'The TSIG key it must sign transfers with (a key of the zone’s user).' })
  tsigKeyId!: number;

  @Field({ description: 'That key’s name; the zone’s NOTIFYs to this server are signed with it.' })
  tsigKeyName!: string;
}

@InputType()
export class ZoneSecondaryInput {
  @Field({ description: 'The server’s IP address.' })
  address!: string;

  @Field(() => Int, { nullable: true, description: 'The port NOTIFYs go to; 53 when omitted.' })
  port?: number | null;

  @Field({ description: 'The name of an active TSIG key of the zone’s user that the server signs its transfers with.' })
  tsigKeyName!: string;
}

@InputType({ description: 'A DNS server of the customer’s: address, port (53 unless given), and the TSIG key of the zone’s user it uses.' })
export class ServerInput {
  @Field({ description: 'The server’s IP address.' })
  address!: string;

  @Field(() => Int, { nullable: true, description: 'Its port; 53 when omitted.' })
  port?: number | null;

  @Field(() => String, {
    nullable: true,
    description: 'The name of an active TSIG key of the zone’s user that signs the transfers; omitted: unsigned.',
  })
  tsigKeyName?: string | null;
}

@ObjectType('ZonePrimary', { simpleResolvers: true, description: 'A primary a SECONDARY zone is taken from.' })
export class ZonePrimaryType {
  @Field()
  address!: string;

  @Field(() => Int)
  port!: number;

  @Field(() => String, { nullable: true, description: 'The TSIG key its transfers are signed with; null: unsigned.' })
  tsigKeyName!: string | null;
}

export enum SecondaryStateEnum {
  PENDING = 'pending',
  IN_SYNC = 'in_sync',
  RETRYING = 'retrying',
  EXPIRED = 'expired',
}
registerEnumType(SecondaryStateEnum, {
  name: 'SecondaryState',
  description:
    'PENDING: not transferred yet (not served); IN_SYNC: as its primary serves it; RETRYING: the last refresh failed, served until it expires; EXPIRED: no primary answered past the SOA’s EXPIRE: not served.',
});

@ObjectType('SecondaryZoneStatus', { simpleResolvers: true, description: 'A SECONDARY zone’s transfers from its primaries.' })
export class SecondaryZoneStatusType {
  @Field(() => SecondaryStateEnum)
  state!: SecondaryStateEnum;

  @Field(() => [ZonePrimaryType])
  primaries!: ZonePrimaryType[];

  @Field({ description: 'When the primaries are asked next (a NOTIFY from one of them makes it now).' })
  nextRefreshAt!: Date;

  @Field(() => Date, { nullable: true })
  lastAttemptAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'The last refresh a primary answered (the expiry counts from it).' })
  lastSuccessAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When the zone expires unless a primary answers before.' })
  expiresAt!: Date | null;

  @Field(() => String, { nullable: true, description: 'Why the last refresh failed, at each primary.' })
  lastError!: string | null;

  @Field(() => Int, { description: 'Transfers taken so far.' })
  transfers!: number;

  @Field(() => SerialScalar, {
    nullable: true,
    description:
      'The primary’s serial of the copy held (null before the first transfer). The zone’s serial runs ahead of it once the service flattens an ALIAS of the zone (docs/transfers.md).',
  })
  primarySerial!: number | null;

  @Field(() => [String], {
    description:
      'What the zone holds that is not served as its primary serves it: an ALIAS or ANAME while ALIAS_RESOLVERS is not set (the zone is served, the ALIAS’s owner answers no address).',
  })
  warnings!: string[];
}
