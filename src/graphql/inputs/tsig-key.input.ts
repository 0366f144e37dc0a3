import { Length } from 'class-validator';
import { KeyPolicyInput, KeyPresetEnum } from '../types/key-policy.type';
import { Field, ID, InputType } from 'type-graphql';

@InputType()
export class CreateTsigKeyInput {
  @Field(() => ID, { nullable: true, description: 'The user whose zones the key updates; omitted: an admin key (admin API key only).' })
  userId?: string | null;

  @Field({ description: 'The key name, a domain name (e.g. certbot.example.com).' })
  @Length(1, 253, { message: 'name must be 1 to 253 characters' })
  name!: string;

  @Field(() => String, { nullable: true, defaultValue: 'hmac-sha256', description: 'hmac-sha256 (default), hmac-sha384 or hmac-sha512.' })
  algorithm?: string | null;

  @Field(() => KeyPolicyInput, {
    nullable: true,
    description: 'Rules, flags and limits (docs/least-privilege.md); omitted: an unrestricted key.',
  })
  policy?: KeyPolicyInput | null;

  @Field(() => KeyPresetEnum, {
    nullable: true,
    description: 'A ready-made policy (with `zone` for ONE_ZONE, optionally for READ_ONLY and ACME).',
  })
  preset?: KeyPresetEnum | null;

  @Field(() => String, { nullable: true, description: 'The zone of the preset.' })
  zone?: string | null;
}

@InputType({
  description: 'A change of a TSIG key’s policy (given whole, replacing the key’s). Its name stays: a new name is a new key.',
})
export class UpdateTsigKeyInput {
  @Field(() => KeyPolicyInput, {
    nullable: true,
    description: 'The key’s new policy, replacing its whole policy (docs/least-privilege.md).',
  })
  policy?: KeyPolicyInput | null;

  @Field(() => KeyPresetEnum, { nullable: true, description: 'A ready-made policy replacing the key’s (with `zone` for ONE_ZONE).' })
  preset?: KeyPresetEnum | null;

  @Field(() => String, { nullable: true, description: 'The zone of the preset.' })
  zone?: string | null;
}
