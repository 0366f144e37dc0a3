/** Recovery links: a person's one good link at a time, taken once, that begins a session in its account */
import type { Sql } from '../../db/pool';
import { date } from './dates';

export interface RecoveryLinkRow {
  id: number;
  personId: number;
  /** the person's address */
  email: string;
  /** the account it was made in (the session it begins acts there) */
  userId: number;
  expiresAt: Date;
  createdAt: Date;
}
const RECOVERY_SELECT = `select r.id, r.person_id, p.email, r.user_id, r.expires_at, r.created_at from recovery_links r join people p on p.id = r.person_id`;
const toRecoveryLink = (r: any): RecoveryLinkRow => ({
  id: Number(r.id),
  personId: Number(r.person_id),
  email: r.email,
  userId: Number(r.user_id),
  expiresAt: date(r.expires_at),
  createdAt: date(r.created_at),
});

/** a person's new recovery link; the person's links not used yet are withdrawn (one good link at a time) */
export async function insertRecoveryLink(
  sql: Sql,
  link: { personId: number; userId: number; tokenHash: string; expiresAt: Date },
): Promise<RecoveryLinkRow> {
  await sql.rows(`delete from recovery_links where person_id = $1 and used_at is null`, [link.personId]);
  const [row] = await sql.rows(
    `with made as (insert into recovery_links (person_id, user_id, token_hash, expires_at) values ($1, $2, $3, $4) returning *)
     select r.id, r.person_id, p.email, r.user_id, r.expires_at, r.created_at from made r join people p on p.id = r.person_id`,
    [link.personId, link.userId, link.tokenHash, link.expiresAt],
  );
  return toRecoveryLink(row);
}

/** the recovery link of the token if it is good: not used, not expired, its person still a member of its account */
export async function openRecoveryLinkByToken(sql: Sql, tokenHash: string): Promise<RecoveryLinkRow | undefined> {
  const [row] = await sql.rows(
    `${RECOVERY_SELECT} where r.token_hash = $1 and r.used_at is null and r.expires_at > now()
       and exists (select 1 from memberships m where m.person_id = r.person_id and m.user_id = r.user_id)`,
    [tokenHash],
  );
  return row ? toRecoveryLink(row) : undefined;
}

/** takes the recovery link of the token once (as openRecoveryLinkByToken finds it): marks it used */
export async function takeRecoveryLink(sql: Sql, tokenHash: string): Promise<RecoveryLinkRow | undefined> {
  const [row] = await sql.rows(
    `with taken as (
       update recovery_links r set used_at = now()
        where r.token_hash = $1 and r.used_at is null and r.expires_at > now()
          and exists (select 1 from memberships m where m.person_id = r.person_id and m.user_id = r.user_id)
        returning *)
     select r.id, r.person_id, p.email, r.user_id, r.expires_at, r.created_at from taken r join people p on p.id = r.person_id`,
    [tokenHash],
  );
  return row ? toRecoveryLink(row) : undefined;
}
