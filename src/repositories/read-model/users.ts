/** The read model's users (the accounts as the API lists them) */
import type { Sql } from '../../db/pool';
import { LAZY_TIMES, toUser, type PageRequest, type UserRow } from './rows';
import { idArray, page, Params, whereOf } from './statement-parts';

export interface UserFilter {
  scopeUserId?: number;
  id?: number;
  email?: string;
}

function userConditions(p: Params, filter: UserFilter): string[] {
  const conditions: string[] = [];
  if (filter.scopeUserId !== undefined) conditions.push(`u.id = ${p.add(filter.scopeUserId)}`);
  if (filter.id !== undefined) conditions.push(`u.id = ${p.add(filter.id)}`);
  if (filter.email !== undefined) conditions.push(`lower(u.email) = lower(${p.add(filter.email)})`);
  return conditions;
}

export async function listUsers(sql: Sql, filter: UserFilter, request?: PageRequest): Promise<UserRow[]> {
  const p = new Params();
  const rows = await sql.rows(
    `select u.id, u.email, u.created_at from users u ${page(p, userConditions(p, filter), 'u.id', request)}`,
    p.values,
    LAZY_TIMES,
  );
  return rows.map(toUser);
}

export async function countUsers(sql: Sql, filter: UserFilter): Promise<number> {
  const p = new Params();
  const [row] = await sql.rows(`select count(*) as count from users u ${whereOf(userConditions(p, filter))}`, p.values);
  return Number(row.count);
}

export async function usersByIds(sql: Sql, ids: readonly number[]): Promise<UserRow[]> {
  const rows = await sql.rows('select id, email, created_at from users where id = any($1::bigint[])', [idArray(ids)], LAZY_TIMES);
  return rows.map(toUser);
}
