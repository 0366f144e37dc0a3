import { Length } from 'class-validator';
import { Field, ID, InputType } from 'type-graphql';

@InputType()
export class CreateApiKeyInput {
  @Field(() => ID)
  userId!: string;

  @Field({ description: 'A label for the key, to recognise it later.' })
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name!: string;
}
