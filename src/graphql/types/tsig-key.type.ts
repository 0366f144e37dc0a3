import { Field, ID, ObjectType } from 'type-graphql';
import { KeyFieldsType } from './key-policy.type';

@ObjectType('TsigKey', {
  simpleResolvers: true,
  description: 'A TSIG key (RFC 8945) for DNS UPDATE (RFC 2136) on the primary; its secret is shown only once, when it is created.',
})
export class TsigKeyType extends KeyFieldsType {
  @Field(() => ID, { nullable: true, description: 'The user whose zones it updates; null for an admin key (any zone).' })
  userId!: number | null;

  @Field({ description: 'The key name, as nsupdate -y and certbot give it (lower case, no final dot).' })
  name!: string;

  @Field({ description: 'hmac-sha256, hmac-sha384 or hmac-sha512.' })
  algorithm!: string;

  @Field(() => Date, { nullable: true, description: 'When a request signed with the key first verified; null while unused.' })
  firstUsedAt!: Date | null;
}

@ObjectType('CreatedTsigKey', { simpleResolvers: true })
export class CreatedTsigKeyType {
  @Field(() => TsigKeyType)
  tsigKey!: TsigKeyType;

  @Field({ description: 'The base64 secret (`nsupdate -y <algorithm>:<name>:<secret>`). It cannot be shown again.' })
  secret!: string;
}
