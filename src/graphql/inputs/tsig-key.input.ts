import { Length } from 'class-validator';
import { KeyPolicyChangeInput, NewKeyPolicyInput } from '../types/key-policy.type';
import { Field, ID, InputType } from 'type-graphql';

@InputType()
export class CreateTsigKeyInput extends NewKeyPolicyInput {
  @Field(() => ID, { nullable: true, description: 'The user whose zones the key updates; omitted: an admin key (admin API key only).' })
  userId?: string | null;

  @Field({ description: 'The key name, a domain name (e.g. certbot.example.com).' })
  @Length(1, 253, { message: 'name must be 1 to 253 characters' })
  name!: string;

  @Field(() => String, { nullable: true, defaultValue: 'hmac-sha256', description: 'hmac-sha256 (default), hmac-sha384 or hmac-sha512.' })
  algorithm?: string | null;
}

@InputType({
  description: 'A change of a TSIG key’s policy (given whole, replacing the key’s). Its name stays: a new name is a new key.',
})
export class UpdateTsigKeyInput extends KeyPolicyChangeInput {}
