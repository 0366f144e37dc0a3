import { IsEmail, MaxLength } from 'class-validator';
import { Field, InputType } from 'type-graphql';

@InputType()
export class UserInput {
  @Field()
  @MaxLength(254, { message: 'email must be at most 254 characters (RFC 5321 §4.5.3.1.3)' })
  @IsEmail({}, { message: 'email must be an e-mail address' })
  email!: string;
}
