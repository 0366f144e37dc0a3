import { ArrayMaxSize, IsEmail, MaxLength } from 'class-validator';
import { Field, ID, InputType } from 'type-graphql';
import type { Role } from '../../auth/roles';
import { MemberRoleEnum } from '../types/people.type';

@InputType()
export class InviteMemberInput {
  @Field(() => ID)
  userId!: string;

  @Field()
  @MaxLength(254, { message: 'email must be at most 254 characters (RFC 5321 §4.5.3.1.3)' })
  @IsEmail({}, { message: 'email must be an e-mail address' })
  email!: string;

  @Field(() => MemberRoleEnum)
  role!: Role;

  @Field(() => [String], { nullable: true, description: 'An editor’s zones (named zones only); absent: every zone.' })
  @ArrayMaxSize(100, { message: 'zones: at most 100 zones' })
  zones?: string[] | null;
}

@InputType()
export class SetMemberRoleInput {
  @Field(() => ID)
  userId!: string;

  @Field(() => ID)
  personId!: string;

  @Field(() => MemberRoleEnum)
  role!: Role;

  @Field(() => [String], { nullable: true })
  @ArrayMaxSize(100, { message: 'zones: at most 100 zones' })
  zones?: string[] | null;
}
