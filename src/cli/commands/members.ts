import { Command } from 'commander';
import {
  CreateRecoveryLinkDocument,
  InvitationsDocument,
  InviteMemberDocument,
  MemberEmailsDocument,
  MembersDocument,
  RemoveMemberDocument,
  RevokeInvitationDocument,
  SetMemberRoleDocument,
} from '../generated/members';
import { ApiError, confirm, gql, print, UsageError, userIdOf } from '../shared';

/** the roles as the API names them (the MemberRole enum); typed in any case */
const ROLES = ['owner', 'admin', 'editor', 'viewer'];

/** a role as typed (`editor`, `EDITOR`) as the API's MemberRole, or a usage error naming the roles */
function roleOf(text: string): string {
  const role = text.trim().toLowerCase();
  if (!ROLES.includes(role)) throw new UsageError(`a role is one of ${ROLES.join(', ')} (got "${text}")`);
  return role.toUpperCase();
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** a row of the API as people read it: the role lower case, as they type it */
const readable = <T extends { role: string }>(row: T): Omit<T, 'role'> & { role: string } => ({ ...row, role: row.role.toLowerCase() });

/** a one-time link the API returns as a path when the service has no PUBLIC_ORIGIN: whole, with ZONEKEEPER_URL's origin */
const wholeLink = (link: string) => new URL(link, process.env.ZONEKEEPER_URL ?? 'http://localhost:3000').href;

/** a member named by person id or by e-mail address, as the person id (people remember the address) */
async function personIdOf(userId: string, member: string): Promise<string> {
  if (/^\d+$/.test(member)) return member;
  const { members } = await gql(MemberEmailsDocument, { user: userId });
  const found = members.find((m) => m.email.toLowerCase() === member.trim().toLowerCase());
  if (!found) throw new ApiError('MEMBER_NOT_FOUND', `${member} is no member of the account`);
  return found.personId;
}

/**
 * `zonekeeper member` and `zonekeeper invitation`: the people of an account (docs/people.md), with a key that
 * manages its members (the admin key, an account's key; a restricted one with mayManageKeys as an admin).
 * Accounts by id or e-mail, members by person id or e-mail; roles in any case.
 */
export function registerMemberCommands(program: Command): void {
  const member = program.command('member').description("an account's members and their roles");
  member
    .command('list <user>')
    .description("list an account's members")
    .action(async (user: string) => {
      const { members } = await gql(MembersDocument, { user: await userIdOf(user) });
      print(program, members.map(readable), ['personId', 'email', 'role', 'zones', 'createdAt']);
    });
  member
    .command('role <user> <member> <role>')
    .description(`change a member's role (${ROLES.join(', ')}); an account keeps an owner`)
    .option('--zone <zone>', "an editor's zone (named zones only; none: every zone); repeatable", collect)
    .action(async (user: string, who: string, role: string, options: { zone?: string[] }) => {
      const userId = await userIdOf(user);
      const input = { userId, personId: await personIdOf(userId, who), role: roleOf(role), zones: options.zone ?? null };
      const { setMemberRole } = await gql(SetMemberRoleDocument, { input });
      print(program, readable(setMemberRole));
    });
  member
    .command('remove <user> <member>')
    .description('remove a member from an account (the last owner cannot leave)')
    .option('--yes', 'do not ask')
    .action(async (user: string, who: string, options: { yes?: boolean }) => {
      const userId = await userIdOf(user);
      await confirm(options, `remove ${who} from account ${user}`, who);
      const { removeMember } = await gql(RemoveMemberDocument, { user: userId, person: await personIdOf(userId, who) });
      print(program, { ...readable(removeMember), removed: true });
    });
  member
    .command('recover <user> <member>')
    .description('a one-time link for a member who lost their passkeys to register a new one (their other sessions end)')
    .action(async (user: string, who: string) => {
      const userId = await userIdOf(user);
      const { createRecoveryLink } = await gql(CreateRecoveryLinkDocument, { user: userId, person: await personIdOf(userId, who) });
      print(program, { ...createRecoveryLink.recoveryLink, link: wholeLink(createRecoveryLink.link) });
    });

  const invitation = program.command('invitation').description('invitations to an account (one-time links; Zonekeeper sends nothing)');
  invitation
    .command('add <user> <email>')
    .description('invite an address to an account with a role; prints the one-time link to pass on')
    .requiredOption('--role <role>', ROLES.join(', '))
    .option('--zone <zone>', "an editor's zone (named zones only; none: every zone); repeatable", collect)
    .action(async (user: string, email: string, options: { role: string; zone?: string[] }) => {
      const input = { userId: await userIdOf(user), email, role: roleOf(options.role), zones: options.zone ?? null };
      const { inviteMember } = await gql(InviteMemberDocument, { input });
      print(program, { ...readable(inviteMember.invitation), link: wholeLink(inviteMember.link) });
    });
  invitation
    .command('list <user>')
    .description("list an account's open invitations")
    .action(async (user: string) => {
      const { invitations } = await gql(InvitationsDocument, { user: await userIdOf(user) });
      print(program, invitations.map(readable), ['id', 'email', 'role', 'zones', 'expiresAt']);
    });
  invitation
    .command('revoke <id>')
    .description('withdraw an open invitation')
    .action(async (id: string) => {
      const { revokeInvitation } = await gql(RevokeInvitationDocument, { id });
      print(program, { ...readable(revokeInvitation), revoked: true });
    });
}
