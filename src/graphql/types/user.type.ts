import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType('User', { simpleResolvers: true, description: 'An account that owns zones.' })
export class UserType {
  @Field(() => ID)
  id!: number;

  @Field()
  email!: string;

  @Field()
  createdAt!: Date;
}
