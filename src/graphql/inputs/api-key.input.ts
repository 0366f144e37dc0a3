import { IsOptional, Length } from 'class-validator';
import { KeyPolicyInput, KeyPresetEnum } from '../types/key-policy.type';
import { Field, ID, InputType } from 'type-graphql';

@InputType()
export class CreateApiKeyInput {
  @Field(() => ID)
  userId!: string;

  @Field({ description: 'A label for the key, to recognise it later.' })
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name!: string;

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

@InputType({ description: 'A change of an API key: its name, its policy (given whole, replacing the key’s), or both.' })
export class UpdateApiKeyInput {
  @Field(() => String, { nullable: true, description: 'The key’s new label; omitted: unchanged.' })
  @IsOptional()
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name?: string | null;

  @Field(() => KeyPolicyInput, {
    nullable: true,
    description: 'The key’s new policy, replacing its whole policy (docs/least-privilege.md); omitted with `preset`: unchanged.',
  })
  policy?: KeyPolicyInput | null;

  @Field(() => KeyPresetEnum, { nullable: true, description: 'A ready-made policy replacing the key’s (with `zone` for ONE_ZONE).' })
  preset?: KeyPresetEnum | null;

  @Field(() => String, { nullable: true, description: 'The zone of the preset.' })
  zone?: string | null;
}
