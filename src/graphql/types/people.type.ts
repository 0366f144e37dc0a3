import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import type { Role } from '../../auth/roles';
import type { OperatorGrant } from '../../services/people/operators.service';

/** the GraphQL names of a member's roles (src/auth/roles.ts; the stored values are lower case) */
export enum MemberRoleEnum {
  OWNER = 'owner',
  ADMIN = 'admin',
  EDITOR = 'editor',
  VIEWER = 'viewer',
}
registerEnumType(MemberRoleEnum, {
  name: 'MemberRole',
  description: 'A person’s role in an account (docs/people.md).',
  valuesConfig: {
    OWNER: { description: 'Everything of the account: its owners, zone transfers, the account itself.' },
    ADMIN: { description: 'Members (not owners), keys, every zone.' },
    EDITOR: { description: 'The records of every zone, or of the named zones only; no zone created or deleted, no keys.' },
    VIEWER: { description: 'Reads every zone, changes nothing.' },
  },
});

@ObjectType('Membership', { simpleResolvers: true, description: 'A person’s membership of an account, with a role (docs/people.md).' })
export class MembershipType {
  @Field(() => ID)
  personId!: number;

  @Field({ description: 'The person’s e-mail address.' })
  email!: string;

  @Field(() => ID, { description: 'The account (the REST interface’s user, which owns zones).' })
  userId!: number;

  @Field({ description: 'The account’s e-mail address.' })
  accountEmail!: string;

  @Field(() => MemberRoleEnum)
  role!: Role;

  @Field(() => [String], { nullable: true, description: 'An editor’s named zones; null: every zone of the account.' })
  zones!: string[] | null;

  @Field()
  createdAt!: Date;
}

@ObjectType('Invitation', { simpleResolvers: true, description: 'An open invitation to an account.' })
export class InvitationType {
  @Field(() => ID)
  id!: number;

  @Field(() => ID)
  userId!: number;

  @Field()
  email!: string;

  @Field(() => MemberRoleEnum)
  role!: Role;

  @Field(() => [String], { nullable: true })
  zones!: string[] | null;

  @Field()
  expiresAt!: Date;

  @Field()
  createdAt!: Date;
}

@ObjectType('CreatedInvitation', { simpleResolvers: true })
export class CreatedInvitationType {
  @Field(() => InvitationType)
  invitation!: InvitationType;

  @Field({ description: 'The one-time token (not stored; shown once): the invited person accepts it signed in.' })
  token!: string;

  @Field({ description: 'The console’s page that accepts it; Zonekeeper sends it nowhere.' })
  link!: string;
}

@ObjectType('RecoveryLink', { simpleResolvers: true, description: 'A member’s one-time link to register a new passkey.' })
export class RecoveryLinkType {
  @Field(() => ID)
  id!: number;

  @Field(() => ID, { description: 'The person it is for.' })
  personId!: number;

  @Field({ description: 'The person’s e-mail address.' })
  email!: string;

  @Field(() => ID, { description: 'The account it was made in: the session it begins acts there.' })
  userId!: number;

  @Field({ description: 'When it stops being good (RECOVERY_LINK_TTL after it was made).' })
  expiresAt!: Date;

  @Field()
  createdAt!: Date;
}

@ObjectType('CreatedRecoveryLink', { simpleResolvers: true })
export class CreatedRecoveryLinkType {
  @Field(() => RecoveryLinkType)
  recoveryLink!: RecoveryLinkType;

  @Field({ description: 'The one-time token (not stored; shown once).' })
  token!: string;

  @Field({
    description: 'The console’s page that takes it (a new passkey; the person’s other sessions end); Zonekeeper sends it nowhere.',
  })
  link!: string;
}

@ObjectType('Session', { simpleResolvers: true, description: 'A live sign-in of the person.' })
export class SessionType {
  @Field(() => ID)
  id!: number;

  @Field(() => ID, { nullable: true, description: 'The account it acts in.' })
  accountId!: number | null;

  @Field()
  createdAt!: Date;

  @Field({ description: 'When it was last used (written at most once a minute).' })
  lastSeenAt!: Date;

  @Field(() => String, { nullable: true })
  sourceAddress!: string | null;

  @Field(() => String, { nullable: true })
  userAgent!: string | null;

  @Field({ description: 'This request’s own session.' })
  current!: boolean;
}

@ObjectType('Passkey', { simpleResolvers: true, description: 'One of the signed-in person’s passkeys (no key material).' })
export class PasskeyType {
  @Field(() => ID)
  id!: number;

  @Field({ description: 'When it was registered.' })
  createdAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When it last signed in; null: never.' })
  lastUsedAt!: Date | null;

  @Field(() => [String], { nullable: true, description: 'How the browser reaches it (usb, nfc, internal, hybrid…), as it said.' })
  transports!: string[] | null;
}

@ObjectType('Me', { simpleResolvers: true, description: 'The person signed in.' })
export class MeType {
  @Field(() => ID)
  personId!: number;

  @Field()
  email!: string;

  @Field(() => ID, { nullable: true, description: 'The account acted in; null: none yet.' })
  accountId!: number | null;

  @Field(() => MemberRoleEnum, { nullable: true, description: 'The role there.' })
  role!: Role | null;

  @Field(() => [MembershipType])
  memberships!: MembershipType[];
}

@ObjectType('ZoneTransfer', {
  simpleResolvers: true,
  description: 'A zone offered by its account’s owner to another account, until accepted, cancelled or expired (docs/people.md).',
})
export class ZoneTransferType {
  @Field(() => ID)
  id!: number;

  @Field({ description: 'The zone’s name.' })
  zone!: string;

  @Field(() => ID, { description: 'The account the zone is in.' })
  fromUserId!: number;

  @Field(() => ID, { description: 'The account it is offered to.' })
  toUserId!: number;

  @Field(() => String, { nullable: true, description: 'Who offered it: a person’s e-mail address or a key’s name.' })
  offeredBy!: string | null;

  @Field()
  expiresAt!: Date;

  @Field()
  createdAt!: Date;
}

/** how a person became an operator (docs/people.md, «The operator»; stored lower case) */
export enum OperatorGrantEnum {
  HAND = 'hand',
  OIDC = 'oidc',
}
registerEnumType(OperatorGrantEnum, {
  name: 'OperatorGrant',
  description: 'How a person became an operator (docs/people.md, «The operator»).',
  valuesConfig: {
    HAND: {
      description: 'Granted by the admin key or another operator (grantOperator, `zonekeeper operator grant`); only a revoke removes it.',
    },
    OIDC: { description: 'Granted by an OpenID Connect sign-in whose claim held an operator value; a sign-in without it removes it.' },
  },
});

@ObjectType('Operator', {
  simpleResolvers: true,
  description: 'A person and their operator grant: an operator acts with the admin key’s rights in every account.',
})
export class OperatorType {
  @Field(() => ID)
  personId!: number;

  @Field({ description: 'The person’s e-mail address.' })
  email!: string;

  @Field(() => OperatorGrantEnum, { nullable: true, description: 'How the person became an operator; null: no operator (revoked).' })
  grant!: OperatorGrant | null;

  @Field(() => Date, { nullable: true, description: 'Since when the person is an operator; null: no operator.' })
  since!: Date | null;
}
