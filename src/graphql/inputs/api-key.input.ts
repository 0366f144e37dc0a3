import { IsOptional, Length } from 'class-validator';
import { KeyPolicyChangeInput, KeyPolicyInput, NewKeyPolicyInput } from '../types/key-policy.type';
import { Field, ID, InputType } from 'type-graphql';
import { ApiKeyScopeEnum } from '../types/api-key.type';

@InputType()
export class CreateApiKeyInput extends NewKeyPolicyInput {
  @Field(() => ID)
  userId!: string;

  @Field({ description: 'A label for the key, to recognise it later.' })
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name!: string;

  @Field(() => [ApiKeyScopeEnum], {
    nullable: true,
    description: 'What the key may do beyond its policy (PROPOSE_CHANGES); a key gives only scopes it has. Omitted: none.',
  })
  scopes?: ApiKeyScopeEnum[] | null;
}

@InputType({ description: 'A change of an API key: its name, its policy (given whole, replacing the key’s), or both.' })
export class UpdateApiKeyInput extends KeyPolicyChangeInput {
  @Field(() => String, { nullable: true, description: 'The key’s new label; omitted: unchanged.' })
  @IsOptional()
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name?: string | null;

  // the name alone may change: without a policy and a preset, the policy stays
  @Field(() => KeyPolicyInput, {
    nullable: true,
    description: 'The key’s new policy, replacing its whole policy (docs/least-privilege.md); omitted with `preset`: unchanged.',
  })
  override policy?: KeyPolicyInput | null;
}
