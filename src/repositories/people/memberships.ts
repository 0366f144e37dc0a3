/** A person's memberships of accounts: a role, and the zones it is limited to (null: every zone) */
import type { Sql } from '../../db/pool';
import type { Role } from '../../auth/roles';
import { date } from './dates';

export interface MembershipRow {
  personId: number;
  email: string;
  userId: number;
  accountEmail: string;
  role: Role;
  zones: string[] | null;
  createdAt: Date;
}

const toMembership = (r: any): MembershipRow => ({
  personId: Number(r.person_id),
  email: r.email,
  userId: Number(r.user_id),
  accountEmail: r.account_email,
  role: r.role,
  zones: r.zones ?? null,
  createdAt: date(r.created_at),
});

const MEMBERSHIP_SELECT = `select m.person_id, p.email, m.user_id, u.email as account_email, m.role, m.zones, m.created_at
  from memberships m join people p on p.id = m.person_id join users u on u.id = m.user_id`;

export async function membershipsOfPerson(sql: Sql, personId: number): Promise<MembershipRow[]> {
  return (await sql.rows(`${MEMBERSHIP_SELECT} where m.person_id = $1 order by m.user_id`, [personId])).map(toMembership);
}

export async function membersOfAccount(sql: Sql, userId: number): Promise<MembershipRow[]> {
  return (await sql.rows(`${MEMBERSHIP_SELECT} where m.user_id = $1 order by lower(p.email)`, [userId])).map(toMembership);
}

export async function membership(sql: Sql, personId: number, userId: number): Promise<MembershipRow | undefined> {
  const [row] = await sql.rows(`${MEMBERSHIP_SELECT} where m.person_id = $1 and m.user_id = $2`, [personId, userId]);
  return row ? toMembership(row) : undefined;
}

/** adds the person to the account, or sets the role of a member (an invitation accepted twice changes nothing else) */
export async function upsertMembership(sql: Sql, personId: number, userId: number, role: Role, zones: string[] | null): Promise<void> {
  await sql.rows(
    `insert into memberships (person_id, user_id, role, zones) values ($1, $2, $3, $4)
       on conflict (person_id, user_id) do update set role = excluded.role, zones = excluded.zones`,
    [personId, userId, role, zones],
  );
}

export async function deleteMembership(sql: Sql, personId: number, userId: number): Promise<boolean> {
  return (await sql.affected('delete from memberships where person_id = $1 and user_id = $2', [personId, userId])) > 0;
}

/**
 * Locks the account's owner memberships (FOR UPDATE) and counts them: two owners leaving at once see each
 * other's removal, so the last owner cannot leave by a race.
 */
export async function lockOwners(sql: Sql, userId: number): Promise<number[]> {
  const rows = await sql.rows(`select person_id from memberships where user_id = $1 and role = 'owner' order by person_id for update`, [
    userId,
  ]);
  return rows.map((r) => Number(r.person_id));
}
