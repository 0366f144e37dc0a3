/** People (docs/people.md): a person is an e-mail address, made on first sight */
import type { Sql } from '../../db/pool';
import { date } from './dates';

export interface PersonRow {
  id: number;
  email: string;
  createdAt: Date;
}

const toPerson = (r: any): PersonRow => ({ id: Number(r.id), email: r.email, createdAt: date(r.created_at) });

/** the person of the e-mail address (compared without case), made on first sight */
export async function personByEmail(sql: Sql, email: string, create: boolean): Promise<PersonRow | undefined> {
  if (create) {
    await sql.rows(`insert into people (email) values ($1) on conflict (lower(email)) do nothing`, [email]);
  }
  const [row] = await sql.rows('select id, email, created_at from people where lower(email) = lower($1)', [email]);
  return row ? toPerson(row) : undefined;
}

/** has the person a way to sign in already: a passkey, or a session ever begun (an OIDC sign-in) */
export async function personHasSignedIn(sql: Sql, personId: number): Promise<boolean> {
  const [row] = await sql.rows(
    `select exists (select 1 from passkeys where person_id = $1) or exists (select 1 from sessions where person_id = $1) as signed_in`,
    [personId],
  );
  return row?.signed_in === true;
}

export async function personById(sql: Sql, id: number): Promise<PersonRow | undefined> {
  const [row] = await sql.rows('select id, email, created_at from people where id = $1', [id]);
  return row ? toPerson(row) : undefined;
}
