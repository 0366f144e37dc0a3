import { IsNotEmpty, MaxLength } from 'class-validator';
import { Field, ID, InputType } from 'type-graphql';
import { ZoneKindEnum } from '../types/domain.type';
import { ServerInput } from '../types/zone-secondary.type';

@InputType()
export class CreateDomainInput {
  @Field(() => ID, {
    nullable: true,
    description: 'Id of the owning user; omitted: the user of the key (a user’s own key). An admin key names the user.',
  })
  userId?: string | null;

  @Field({ description: 'Zone name; a trailing dot, letter case and IDN are normalised.' })
  @IsNotEmpty({ message: 'zone is required' })
  @MaxLength(1024, { message: 'zone must be at most 1024 characters' })
  zone!: string;

  @Field(() => ZoneKindEnum, {
    nullable: true,
    defaultValue: ZoneKindEnum.PRIMARY,
    description: 'PRIMARY (default): written here; SECONDARY: taken by transfer from `primaries` (docs/transfers.md).',
  })
  kind?: ZoneKindEnum | null;

  @Field(() => [ServerInput], {
    nullable: true,
    description: 'A SECONDARY zone’s primaries, tried in this order (address, port, optional TSIG key of the zone’s user).',
  })
  primaries?: ServerInput[] | null;
  @Field(() => String, {
    nullable: true,
    description: 'The record template the zone starts with (recordTemplates: the user’s, else an admin-wide one); omitted: `default`.',
  })
  @MaxLength(63, { message: 'template must be at most 63 characters' })
  template?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      'The nameserver set that serves the zone (nameserverSets; the admin’s choice): its catalog lists the zone, and the default records’ NS are its NS names. Omitted: `default`.',
  })
  @MaxLength(63, { message: 'nameserverSet must be at most 63 characters' })
  nameserverSet?: string | null;
}
