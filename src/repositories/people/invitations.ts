/** Invitations to an account, taken once by the token's hash */
import type { Sql } from '../../db/pool';
import type { Role } from '../../auth/roles';
import { date } from './dates';

export interface InvitationRow {
  id: number;
  userId: number;
  email: string;
  role: Role;
  zones: string[] | null;
  expiresAt: Date;
  createdAt: Date;
  acceptedAt: Date | null;
}

const INVITATION_COLUMNS = 'id, user_id, email, role, zones, expires_at, created_at, accepted_at';
const toInvitation = (r: any): InvitationRow => ({
  id: Number(r.id),
  userId: Number(r.user_id),
  email: r.email,
  role: r.role,
  zones: r.zones ?? null,
  expiresAt: date(r.expires_at),
  createdAt: date(r.created_at),
  acceptedAt: r.accepted_at === null ? null : date(r.accepted_at),
});

export async function insertInvitation(
  sql: Sql,
  invitation: { userId: number; email: string; role: Role; zones: string[] | null; tokenHash: string; expiresAt: Date },
): Promise<InvitationRow> {
  const [row] = await sql.rows(
    `insert into invitations (user_id, email, role, zones, token_hash, expires_at) values ($1, $2, $3, $4, $5, $6) returning ${INVITATION_COLUMNS}`,
    [invitation.userId, invitation.email, invitation.role, invitation.zones, invitation.tokenHash, invitation.expiresAt],
  );
  return toInvitation(row);
}

/** takes the invitation of the token once: marks it accepted (by `personId`) if it is open and unexpired */
export async function takeInvitation(sql: Sql, tokenHash: string, personId: number): Promise<InvitationRow | undefined> {
  const [row] = await sql.rows(
    `update invitations set accepted_at = now(), accepted_by = $2
      where token_hash = $1 and accepted_at is null and expires_at > now() returning ${INVITATION_COLUMNS}`,
    [tokenHash, personId],
  );
  return row ? toInvitation(row) : undefined;
}

/** the invitation of the token if it is open: not taken and not expired (nothing is written) */
export async function openInvitationByToken(sql: Sql, tokenHash: string): Promise<InvitationRow | undefined> {
  const [row] = await sql.rows(
    `select ${INVITATION_COLUMNS} from invitations where token_hash = $1 and accepted_at is null and expires_at > now()`,
    [tokenHash],
  );
  return row ? toInvitation(row) : undefined;
}

/** the invitation of a token that this person took already (by signing in: every sign-in takes them) */
export async function invitationTakenBy(sql: Sql, tokenHash: string, personId: number): Promise<InvitationRow | undefined> {
  const [row] = await sql.rows(`select ${INVITATION_COLUMNS} from invitations where token_hash = $1 and accepted_by = $2`, [
    tokenHash,
    personId,
  ]);
  return row ? toInvitation(row) : undefined;
}

/** the open invitations of an e-mail address (first sign-in of an invited address links the person) */
export async function openInvitationsOf(sql: Sql, email: string): Promise<InvitationRow[]> {
  const rows = await sql.rows(
    `select ${INVITATION_COLUMNS} from invitations where lower(email) = lower($1) and accepted_at is null and expires_at > now() order by id`,
    [email],
  );
  return rows.map(toInvitation);
}

export async function acceptInvitationById(sql: Sql, id: number, personId: number): Promise<boolean> {
  return (
    (await sql.affected(
      `update invitations set accepted_at = now(), accepted_by = $2 where id = $1 and accepted_at is null and expires_at > now()`,
      [id, personId],
    )) > 0
  );
}

export async function invitationsOfAccount(sql: Sql, userId: number): Promise<InvitationRow[]> {
  const rows = await sql.rows(`select ${INVITATION_COLUMNS} from invitations where user_id = $1 and accepted_at is null order by id`, [
    userId,
  ]);
  return rows.map(toInvitation);
}

export async function deleteInvitation(sql: Sql, id: number, userId: number | undefined): Promise<InvitationRow | undefined> {
  const [row] = await sql.rows(
    `delete from invitations where id = $1 and ($2::bigint is null or user_id = $2) and accepted_at is null returning ${INVITATION_COLUMNS}`,
    [id, userId ?? null],
  );
  return row ? toInvitation(row) : undefined;
}
