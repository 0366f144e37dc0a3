import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Connection } from './connection';

@ObjectType('AuditEvent', {
  simpleResolvers: true,
  description:
    'One event of the audit log (docs/audit-log.md): keys created, revoked and first used, failed authentications (one event per source address and minute, with a count), admin actions.',
})
export class AuditEventType {
  @Field(() => ID)
  id!: number;

  @Field({ description: 'When it happened; for failed authentications, the start of their minute.' })
  at!: Date;

  @Field({ description: 'What happened: api-key-created, api-key-revoked, api-key-first-used, tsig-key-created, … (docs/audit-log.md).' })
  kind!: string;

  @Field(() => String, { nullable: true, description: 'api, tsig or session (a person signed in): what acted; null when no key did.' })
  actorKeyType!: string | null;

  @Field(() => ID, { nullable: true, description: 'The id of the key that acted.' })
  actorKeyId!: number | null;

  @Field(() => String, { nullable: true, description: 'The name of the key that acted, as it was then.' })
  actorKeyName!: string | null;

  @Field(() => ID, { nullable: true, description: "The acting key's user; null for an admin key." })
  actorUserId!: number | null;

  @Field({ description: 'Whether an admin key acted.' })
  actorAdmin!: boolean;

  @Field(() => String, { nullable: true, description: 'The person who acted, signed in (docs/people.md), by e-mail; null for a key.' })
  actorEmail!: string | null;

  @Field(() => String, { nullable: true, description: 'What it was done to: api-key:12, tsig-key:3, user:5, zone:example.com.' })
  subject!: string | null;

  @Field(() => GraphQLJSONObject, { description: 'More about it (never a secret).' })
  detail!: Record<string, unknown>;

  @Field(() => String, { nullable: true, description: 'The address the request came from.' })
  sourceAddress!: string | null;

  @Field(() => Int, { description: 'How many attempts the event stands for (failed authentications); 1 otherwise.' })
  count!: number;
}

@ObjectType('AuditEventConnection', { simpleResolvers: true })
export class AuditEventConnection extends Connection(AuditEventType, 'AuditEventEdge') {}
