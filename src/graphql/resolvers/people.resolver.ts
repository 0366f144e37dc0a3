import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { parseId, parseOptionalId } from '../inputs/ids';
import { InviteMemberInput, SetMemberRoleInput } from '../inputs/people.input';
import {
  CreatedInvitationType,
  CreatedRecoveryLinkType,
  InvitationType,
  MeType,
  MembershipType,
  PasskeyType,
  SessionType,
} from '../types/people.type';
import { personOf } from '../../services/people/people.service';
import { actingAccountId } from '../../auth/principal';

/** People, members, invitations and sessions (docs/people.md; PeopleService, SessionsService). */
@Resolver()
export class PeopleResolver {
  @Query(() => MeType, { description: 'The person signed in (a session, not a key), the account acted in and every membership.' })
  async me(@Ctx() ctx: GraphQLContext): Promise<MeType> {
    const person = personOf(ctx.principal);
    return {
      personId: person.id,
      email: person.email,
      accountId: actingAccountId(ctx.principal),
      role: person.role,
      memberships: await ctx.services.people.memberships(ctx),
    };
  }

  @Query(() => [MembershipType], { description: 'The members of an account (its members, its keys and the admin key see them).' })
  members(@Arg('userId', () => ID) userId: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.people.members(ctx, parseId(userId, 'userId'));
  }

  @Query(() => [InvitationType], { description: 'The open invitations of an account (for those who manage its members).' })
  invitations(@Arg('userId', () => ID) userId: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.people.invitations(ctx, parseId(userId, 'userId'));
  }

  @Mutation(() => CreatedInvitationType, {
    description: 'Invites an address to an account with a role; returns the one-time link (sent nowhere).',
  })
  inviteMember(@Arg('input') input: InviteMemberInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.people.invite(ctx, { ...input, userId: parseId(input.userId, 'userId') });
  }

  @Mutation(() => InvitationType, { description: 'Withdraws an open invitation.' })
  revokeInvitation(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.people.revokeInvitation(ctx, parseId(id, 'id'));
  }

  @Mutation(() => CreatedRecoveryLinkType, {
    description:
      'A one-time link for a member who lost their passkeys to register a new one (their other sessions end); returns it, sent nowhere. A new one withdraws the member’s earlier one.',
  })
  createRecoveryLink(@Arg('userId', () => ID) userId: string, @Arg('personId', () => ID) personId: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.people.recoveryLink(ctx, { userId: parseId(userId, 'userId'), personId: parseId(personId, 'personId') });
  }

  @Mutation(() => MembershipType, { description: 'The person signed in accepts an invitation (its token), once, before it expires.' })
  acceptInvitation(@Arg('token') token: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.people.accept(ctx, token);
  }

  @Mutation(() => MembershipType, { description: 'Changes a member’s role (an editor’s zones); an account keeps an owner.' })
  setMemberRole(@Arg('input') input: SetMemberRoleInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.people.setRole(ctx, {
      ...input,
      userId: parseId(input.userId, 'userId'),
      personId: parseId(input.personId, 'personId'),
    });
  }

  @Mutation(() => MembershipType, { description: 'Removes a member, or the person signed in leaves; the last owner cannot leave.' })
  removeMember(@Arg('userId', () => ID) userId: string, @Arg('personId', () => ID) personId: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.people.remove(ctx, { userId: parseId(userId, 'userId'), personId: parseId(personId, 'personId') });
  }

  @Mutation(() => Boolean, { description: 'The session acts in another of the person’s accounts from the next request.' })
  async switchAccount(@Arg('userId', () => ID) userId: string, @Ctx() ctx: GraphQLContext) {
    await ctx.services.sessions.switchAccount(ctx, parseId(userId, 'userId'));
    return true;
  }

  @Query(() => [SessionType], { description: 'The live sessions of the person signed in.' })
  async mySessions(@Ctx() ctx: GraphQLContext): Promise<SessionType[]> {
    const rows = await ctx.services.sessions.list(ctx);
    return rows.map((row) => ({ ...row, current: row.id === ctx.principal.keyId }));
  }

  @Mutation(() => [ID], { description: 'Ends one of the person’s sessions (`id`), or every one (sign-out everywhere); the ids ended.' })
  endSessions(@Arg('id', () => ID, { nullable: true }) id: string | undefined, @Ctx() ctx: GraphQLContext) {
    return ctx.services.sessions.end(ctx, parseOptionalId(id, 'id'));
  }

  @Query(() => [PasskeyType], { description: 'The passkeys of the person signed in.' })
  myPasskeys(@Ctx() ctx: GraphQLContext) {
    return ctx.services.passkeys.list(ctx);
  }

  @Mutation(() => ID, { description: 'Removes one of the signed-in person’s passkeys (a lost authenticator); its id.' })
  async removePasskey(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    const passkeyId = parseId(id, 'id');
    await ctx.services.passkeys.remove(ctx, passkeyId);
    return passkeyId;
  }
}
