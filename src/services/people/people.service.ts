import { hash, randomBytes } from 'node:crypto';
import type { Settings } from '../../config/settings';
import { personPrincipal, type ActingPerson, type Principal } from '../../auth/principal';
import { isRestricted, requireFlag } from '../../auth/policy';
import { managesRole, parseRole, Role, roleZones } from '../../auth/roles';
import { DomainError } from '../../errors/catalogue';
import type { Sql } from '../../db/pool';
import {
  acceptInvitationById,
  deleteInvitation,
  deleteMembership,
  endSessions,
  insertRecoveryLink,
  insertInvitation,
  InvitationRow,
  invitationsOfAccount,
  lockOwners,
  membersOfAccount,
  membership,
  MembershipRow,
  membershipsOfPerson,
  openInvitationByToken,
  openInvitationsOf,
  openRecoveryLinkByToken,
  RecoveryLinkRow,
  personByEmail,
  personById,
  personHasSignedIn,
  PersonRow,
  invitationTakenBy,
  takeInvitation,
  takeRecoveryLink,
  upsertMembership,
} from '../../repositories/people';
import type { RequestContext } from '../context';
import { inTransaction } from '../db-errors';
import { recordAuditEvent } from '../audit-log';

export type { InvitationRow, MembershipRow, PersonRow, RecoveryLinkRow } from '../../repositories/people';

/** a one-time secret (an invitation's, a session's): 32 random bytes, stored as its SHA-256 only */
export function newToken(prefix: string): { token: string; hash: string } {
  const token = `${prefix}_${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashToken(token) };
}
// a session's token is hashed on every request it carries: the one-shot digest, as API keys' (hashKey)
export const hashToken = (token: string): string => hash('sha256', token, 'hex');

export interface CreatedInvitation {
  invitation: InvitationRow;
  /** the one-time token, returned once (sent nowhere: the inviter passes it on) */
  token: string;
  /** the console's page that accepts it */
  link: string;
}

export interface CreatedRecoveryLink {
  recoveryLink: RecoveryLinkRow;
  /** the one-time token, returned once (sent nowhere) */
  token: string;
  /** the console's page that takes it */
  link: string;
}

/** the signed-in person of the principal, or NOT_SIGNED_IN (a key acts for an account, not for a person) */
export function personOf(principal: Principal): ActingPerson {
  if (principal.via !== 'session' || !principal.person) throw new DomainError('NOT_SIGNED_IN');
  return principal.person;
}

/**
 * People and their accounts (docs/people.md): members with a role per account, invitations (one-time tokens
 * with an expiry, stored hashed), role changes and removal, with the rule that an account keeps an owner.
 * Who manages whom: the admin key every account; an account's unrestricted key as its owner, a restricted
 * one with mayManageKeys as its admin; a person by the role held there (src/auth/roles.ts, managesRole).
 */
export class PeopleService {
  constructor(private readonly settings: Settings) {}

  /** the role the principal acts with in the account (the admin key and an account's own key count as owner) */
  async roleIn(sql: Sql, principal: Principal, userId: number): Promise<Role | null> {
    if (principal.kind === 'admin') return 'owner';
    if (principal.via === 'session' && principal.person) return (await membership(sql, principal.person.id, userId))?.role ?? null;
    if (principal.userId !== userId) return null;
    // members are the account's as keys are: a restricted key deals with them only with mayManageKeys
    requireFlag(principal.policy, 'mayManageKeys');
    return isRestricted(principal.policy) ? 'admin' : 'owner';
  }

  /** refuses unless the principal manages members of `target` role in the account; an outsider does not see it */
  private async requireManages(sql: Sql, principal: Principal, userId: number, target: Role): Promise<Role> {
    const role = await this.roleIn(sql, principal, userId);
    if (role === null) throw DomainError.notFound('USER_NOT_FOUND', 'userId');
    if (!managesRole(role, target))
      throw new DomainError('FORBIDDEN_BY_ROLE', `a ${role} may not manage members who are (or become) ${target}`, [
        { field: 'role', code: 'FORBIDDEN_BY_ROLE', message: `a ${role} may not manage a ${target}` },
      ]);
    return role;
  }

  /**
   * refuses unless the principal counts as the account's owner (a person with the owner role there, an
   * unrestricted key of the account, the admin key): what moving a zone out of or into an account takes
   */
  async requireOwner(sql: Sql, principal: Principal, userId: number, outsider: () => DomainError): Promise<void> {
    const role = await this.roleIn(sql, principal, userId);
    if (role === null) throw outsider();
    if (role !== 'owner') throw new DomainError('FORBIDDEN_BY_ROLE', `only an owner of the account may do this, not a ${role}`);
  }

  /** the accounts of the person signed in, with the role in each */
  memberships(ctx: RequestContext): Promise<MembershipRow[]> {
    return membershipsOfPerson(ctx.db, personOf(ctx.principal).id);
  }

  /** the members of an account: for its members (any role), its keys that manage keys and the admin key */
  async members(ctx: RequestContext, userId: number): Promise<MembershipRow[]> {
    if ((await this.roleIn(ctx.db, ctx.principal, userId)) === null) throw DomainError.notFound('USER_NOT_FOUND', 'userId');
    return membersOfAccount(ctx.db, userId);
  }

  async invitations(ctx: RequestContext, userId: number): Promise<InvitationRow[]> {
    await this.requireManages(ctx.db, ctx.principal, userId, 'viewer');
    return invitationsOfAccount(ctx.db, userId);
  }

  /** an invitation to the account: a one-time link with an expiry (INVITATION_TTL), returned, sent nowhere */
  async invite(
    ctx: RequestContext,
    input: { userId: number; email: string; role: string; zones?: string[] | null },
  ): Promise<CreatedInvitation> {
    const role = parseRole(input.role);
    const zones = roleZones(role, input.zones);
    const { token, hash } = newToken('zk_invite');
    const invitation = await inTransaction(ctx.db, async (sql) => {
      await this.requireManages(sql, ctx.principal, input.userId, role);
      const row = await insertInvitation(sql, {
        userId: input.userId,
        email: input.email.trim(),
        role,
        zones,
        tokenHash: hash,
        expiresAt: new Date(Date.now() + this.settings.sessions.invitationSeconds * 1000),
      });
      // the address stays out of the event's detail: the log line holds no e-mail addresses but the actor's
      await recordAuditEvent(sql, {
        kind: 'member-invited',
        actor: ctx.principal,
        subject: `user:${input.userId}`,
        detail: { invitation: row.id, role, zones },
      });
      return row;
    });
    return { invitation, token, link: this.consoleLink('invitation', token) };
  }

  /** the console's page of a one-time token: PUBLIC_ORIGIN's, or the path alone for the giver to complete */
  private consoleLink(page: 'invitation' | 'recovery', token: string): string {
    return `${this.settings.sessions.publicOrigin ?? ''}/console/#/${page}/${encodeURIComponent(token)}`;
  }

  /**
   * A recovery link for a member who lost every passkey (docs/people.md, «Recovery»): one-time, good for
   * RECOVERY_LINK_TTL, stored hashed, returned and sent nowhere, as an invitation is. Its holder registers a new
   * passkey as the person, so whoever makes it manages the person's role in the account and in every other
   * account the person is a member of (the admin key manages them all): an admin of one account never hands
   * over a person's place in another. A new link withdraws the person's earlier one.
   */
  async recoveryLink(ctx: RequestContext, input: { userId: number; personId: number }): Promise<CreatedRecoveryLink> {
    const { token, hash } = newToken('zk_recover');
    const recoveryLink = await inTransaction(ctx.db, async (sql) => {
      const member = await membership(sql, input.personId, input.userId);
      if (!member) {
        if ((await this.roleIn(sql, ctx.principal, input.userId)) === null) throw DomainError.notFound('USER_NOT_FOUND', 'userId');
        throw memberNotFound();
      }
      await this.requireManages(sql, ctx.principal, input.userId, member.role);
      for (const other of await membershipsOfPerson(sql, input.personId)) {
        if (other.userId === input.userId) continue;
        if (!managesRole(await this.roleIn(sql, ctx.principal, other.userId), other.role))
          throw new DomainError(
            'FORBIDDEN_BY_ROLE',
            'the person is a member of another account, where you do not manage them: its owner or the operator makes the link',
            [{ field: 'personId', code: 'FORBIDDEN_BY_ROLE', message: 'the person is a member of an account you do not manage them in' }],
          );
      }
      const row = await insertRecoveryLink(sql, {
        personId: input.personId,
        userId: input.userId,
        tokenHash: hash,
        expiresAt: new Date(Date.now() + this.settings.sessions.recoverySeconds * 1000),
      });
      await recordAuditEvent(sql, {
        kind: 'recovery-link-made',
        actor: ctx.principal,
        subject: `user:${input.userId}`,
        detail: { person: input.personId, recoveryLink: row.id },
      });
      return row;
    });
    return { recoveryLink, token, link: this.consoleLink('recovery', token) };
  }

  /** the good recovery link of a token (unused, unexpired, its person still a member), or RECOVERY_LINK_NOT_FOUND; writes nothing */
  async recoveryLinkOf(sql: Sql, token: unknown): Promise<RecoveryLinkRow> {
    if (typeof token !== 'string' || !token.trim()) throw DomainError.invalid('token', 'the recovery token is missing');
    const link = await openRecoveryLinkByToken(sql, hashToken(token.trim()));
    if (!link) throw recoveryLinkNotFound();
    return link;
  }

  /**
   * In the caller's transaction: the recovery link of the token taken (once), and every live session of its
   * person ended (audited session-ended, reason recovery): the lost device's sessions end with it, and whoever
   * holds it keeps no way in but a passkey, which the person removes (myPasskeys, removePasskey). Returns the
   * person and the membership the new session acts in; audited recovery-link-used.
   */
  async recoverIn(sql: Sql, token: string): Promise<{ person: PersonRow; membership: MembershipRow; link: RecoveryLinkRow }> {
    const link = await takeRecoveryLink(sql, hashToken(token.trim()));
    if (!link) throw recoveryLinkNotFound();
    const person = (await personById(sql, link.personId))!;
    const actor = personPrincipal(person, { accountId: link.userId });
    for (const sessionId of await endSessions(sql, person.id, this.settings.sessions))
      await recordAuditEvent(sql, { kind: 'session-ended', actor, subject: `session:${sessionId}`, detail: { reason: 'recovery' } });
    await recordAuditEvent(sql, {
      kind: 'recovery-link-used',
      actor,
      subject: `user:${link.userId}`,
      detail: { person: person.id, recoveryLink: link.id },
    });
    return { person, membership: (await membership(sql, person.id, link.userId))!, link };
  }

  async revokeInvitation(ctx: RequestContext, id: number): Promise<InvitationRow> {
    return inTransaction(ctx.db, async (sql) => {
      const removed = await deleteInvitation(sql, id, undefined);
      if (!removed)
        throw new DomainError('INVITATION_NOT_FOUND', undefined, [
          { field: 'id', code: 'INVITATION_NOT_FOUND', message: 'no open invitation with that id' },
        ]);
      // checked on the row, in the transaction: refused, the deletion rolls back
      await this.requireManages(sql, ctx.principal, removed.userId, removed.role);
      await recordAuditEvent(sql, {
        kind: 'invitation-revoked',
        actor: ctx.principal,
        subject: `user:${removed.userId}`,
        detail: { invitation: id },
      });
      return removed;
    });
  }

  /**
   * The person signed in takes the invitation of the token (once, before it expires, for the person's own
   * address). One the same person took already answers with the membership it gave: an OIDC sign-in takes the
   * address's open invitations, so the link opened signed out may be taken by the sign-in it asks for.
   */
  async accept(ctx: RequestContext, token: string): Promise<MembershipRow> {
    const person = personOf(ctx.principal);
    return inTransaction(ctx.db, async (sql) => {
      const tokenHash = hashToken(token.trim());
      const invitation = await takeInvitation(sql, tokenHash, person.id);
      const taken = invitation ? undefined : await invitationTakenBy(sql, tokenHash, person.id);
      if (taken) {
        const joined = await membership(sql, person.id, taken.userId);
        if (joined) return joined;
      }
      if (!invitation) throw invitationNotFound();
      if (invitation.email.toLowerCase() !== person.email.toLowerCase()) throw new DomainError('INVITATION_FOR_ANOTHER_ADDRESS');
      return this.join(sql, ctx.principal, person.id, invitation);
    });
  }

  /**
   * The open invitation of a link opened with no session, for a person's first passkey: the token stands for
   * the invited address. Unknown, taken or expired: INVITATION_NOT_FOUND; an address whose person can sign in
   * already (a passkey, or an earlier sign-in): INVITATION_NEEDS_SIGN_IN, so that the link's holder never gains
   * a way into the accounts of an existing person. Writes nothing.
   */
  async invitationForNewPerson(sql: Sql, token: unknown): Promise<InvitationRow> {
    if (typeof token !== 'string' || !token.trim()) throw DomainError.invalid('token', 'the invitation token is missing');
    const invitation = await openInvitationByToken(sql, hashToken(token.trim()));
    if (!invitation) throw invitationNotFound();
    const person = await personByEmail(sql, invitation.email, false);
    if (person && (await personHasSignedIn(sql, person.id))) throw invitationNeedsSignIn();
    return invitation;
  }

  /**
   * In the caller's transaction: the person of the invited address (made on first sight) takes the invitation of
   * the token (once, unexpired), and that one only: the token proves the link, not the address, so the
   * address's other invitations wait for their own links or an OIDC sign-in (SessionsService.start). Refused as
   * invitationForNewPerson refuses, checked again once the person's row is there (two links of one address taken
   * at once: the second waits for the first's person, then sees its passkey). Returns who joined what.
   */
  async joinAsNewPerson(sql: Sql, token: string): Promise<{ person: PersonRow; membership: MembershipRow }> {
    const tokenHash = hashToken(token.trim());
    const open = await openInvitationByToken(sql, tokenHash);
    if (!open) throw invitationNotFound();
    const person = (await personByEmail(sql, open.email, true))!;
    if (await personHasSignedIn(sql, person.id)) throw invitationNeedsSignIn();
    const invitation = await takeInvitation(sql, tokenHash, person.id);
    if (!invitation) throw invitationNotFound();
    const joined = await this.join(sql, personPrincipal(person), person.id, invitation);
    return { person, membership: joined };
  }

  /**
   * a sign-in that proved the address (OIDC, its second factor passed): the address's open invitations become
   * memberships (the caller's transaction)
   */
  async linkInvitations(sql: Sql, person: Pick<PersonRow, 'id' | 'email'>, actor: Principal): Promise<void> {
    for (const invitation of await openInvitationsOf(sql, person.email)) {
      if (await acceptInvitationById(sql, invitation.id, person.id)) await this.join(sql, actor, person.id, invitation);
    }
  }

  private async join(sql: Sql, actor: Principal, personId: number, invitation: InvitationRow): Promise<MembershipRow> {
    const existing = await membership(sql, personId, invitation.userId);
    // an invitation never lowers a member's role (an owner invited as viewer stays owner)
    const keep =
      existing &&
      ['owner', 'admin', 'editor', 'viewer'].indexOf(existing.role) < ['owner', 'admin', 'editor', 'viewer'].indexOf(invitation.role);
    if (!keep) await upsertMembership(sql, personId, invitation.userId, invitation.role, invitation.zones);
    await recordAuditEvent(sql, {
      kind: 'member-joined',
      actor,
      subject: `user:${invitation.userId}`,
      detail: { person: personId, role: keep ? existing.role : invitation.role, invitation: invitation.id },
    });
    return (await membership(sql, personId, invitation.userId))!;
  }

  /** a member's new role (and an editor's zones); an account keeps at least one owner */
  async setRole(
    ctx: RequestContext,
    input: { userId: number; personId: number; role: string; zones?: string[] | null },
  ): Promise<MembershipRow> {
    const role = parseRole(input.role);
    const zones = roleZones(role, input.zones);
    return inTransaction(ctx.db, async (sql) => {
      const owners = await lockOwners(sql, input.userId);
      const before = await membership(sql, input.personId, input.userId);
      if (!before) throw memberNotFound();
      await this.requireManages(sql, ctx.principal, input.userId, before.role);
      await this.requireManages(sql, ctx.principal, input.userId, role);
      if (before.role === 'owner' && role !== 'owner' && owners.length === 1) throw new DomainError('LAST_OWNER');
      await upsertMembership(sql, input.personId, input.userId, role, zones);
      await recordAuditEvent(sql, {
        kind: 'member-role-changed',
        actor: ctx.principal,
        subject: `user:${input.userId}`,
        detail: { person: input.personId, before: before.role, after: role, zones },
      });
      return (await membership(sql, input.personId, input.userId))!;
    });
  }

  /** removes a member (a member may always leave); the last owner cannot leave */
  async remove(ctx: RequestContext, input: { userId: number; personId: number }): Promise<MembershipRow> {
    return inTransaction(ctx.db, async (sql) => {
      const owners = await lockOwners(sql, input.userId);
      const before = await membership(sql, input.personId, input.userId);
      const self = ctx.principal.via === 'session' && ctx.principal.person?.id === input.personId;
      if (!before) throw memberNotFound();
      if (!self) await this.requireManages(sql, ctx.principal, input.userId, before.role);
      if (before.role === 'owner' && owners.length === 1) throw new DomainError('LAST_OWNER');
      await deleteMembership(sql, input.personId, input.userId);
      await recordAuditEvent(sql, {
        kind: 'member-removed',
        actor: ctx.principal,
        subject: `user:${input.userId}`,
        detail: { person: input.personId, role: before.role },
      });
      return before;
    });
  }
}

function invitationNotFound(): DomainError {
  return new DomainError('INVITATION_NOT_FOUND', undefined, [
    { field: 'token', code: 'INVITATION_NOT_FOUND', message: 'the invitation is unknown, used or expired' },
  ]);
}

function recoveryLinkNotFound(): DomainError {
  return new DomainError('RECOVERY_LINK_NOT_FOUND', undefined, [
    { field: 'token', code: 'RECOVERY_LINK_NOT_FOUND', message: 'the recovery link is unknown, used or expired' },
  ]);
}

function invitationNeedsSignIn(): DomainError {
  return new DomainError('INVITATION_NEEDS_SIGN_IN', undefined, [
    {
      field: 'token',
      code: 'INVITATION_NEEDS_SIGN_IN',
      message: 'the invited address can sign in already: sign in, then open the link (the sign-in takes the invitation)',
    },
  ]);
}

function memberNotFound(): DomainError {
  return new DomainError('MEMBER_NOT_FOUND', undefined, [
    { field: 'personId', code: 'MEMBER_NOT_FOUND', message: 'no such member of the account' },
  ]);
}
