import { IsNotEmpty, MaxLength } from 'class-validator';
import { Field, ID, InputType } from 'type-graphql';

@InputType()
export class CreateDomainInput {
  @Field(() => ID, { description: 'Id of the owning user.' })
  userId!: string;

  @Field({ description: 'Zone name; a trailing dot, letter case and IDN are normalised.' })
  @IsNotEmpty({ message: 'zone is required' })
  @MaxLength(1024, { message: 'zone must be at most 1024 characters' })
  zone!: string;
}
