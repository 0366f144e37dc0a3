import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType('ChangeAuthor', {
  simpleResolvers: true,
  description: 'Who made a change: the API key or, for a DNS UPDATE, the TSIG key, and its user (none for an admin key).',
})
export class ChangeAuthor {
  @Field(() => ID, { nullable: true, description: 'The API key; null for a DNS UPDATE.' })
  keyId!: number | null;

  @Field(() => ID, { nullable: true, description: 'The TSIG key of a DNS UPDATE (RFC 2136); null for an API change.' })
  tsigKeyId!: number | null;

  @Field(() => String, { nullable: true, description: 'The key’s name when the change was made.' })
  keyName!: string | null;

  @Field(() => ID, { nullable: true })
  userId!: number | null;

  @Field({ description: 'Made with an admin key.' })
  admin!: boolean;

  @Field(() => String, { nullable: true, description: 'The person who made it, signed in (docs/people.md), by e-mail.' })
  email!: string | null;
}
