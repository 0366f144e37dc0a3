/** The operator (docs/people.md, «The operator»): a person's grant, by hand or by an OpenID Connect claim */
import type { Sql } from '../../db/pool';
import { date } from './dates';

/** how a person became an operator: by hand (the CLI, GraphQL) or by an OpenID Connect sign-in's claim */
export type OperatorGrant = 'hand' | 'oidc';
export interface OperatorRow {
  personId: number;
  email: string;
  /** null: no operator (any more) */
  grant: OperatorGrant | null;
  since: Date | null;
}

const OPERATOR_SELECT = 'select id as person_id, email, operator_grant, operator_since from people';
const toOperator = (r: any): OperatorRow => ({
  personId: Number(r.person_id),
  email: r.email,
  grant: r.operator_grant ?? null,
  since: r.operator_since === null ? null : date(r.operator_since),
});

/** the operator persons, in the order they became operators */
export async function operatorsList(sql: Sql): Promise<OperatorRow[]> {
  return (await sql.rows(`${OPERATOR_SELECT} where operator_grant is not null order by operator_since, id`)).map(toOperator);
}

/** the person's operator grant, its row locked (FOR UPDATE) until the caller's transaction ends; null: none */
export async function lockOperatorGrant(sql: Sql, personId: number): Promise<{ grant: OperatorGrant | null } | undefined> {
  const [row] = await sql.rows('select operator_grant from people where id = $1 for update', [personId]);
  return row ? { grant: row.operator_grant ?? null } : undefined;
}

/**
 * Sets the person's operator grant (null: none); `operator_since` is kept while the person stays an operator
 * (a grant by hand over one by OIDC), set when they become one, cleared when they stop. The row as it is after.
 */
export async function setOperatorGrant(sql: Sql, personId: number, grant: OperatorGrant | null): Promise<OperatorRow | undefined> {
  const [row] = await sql.rows(
    `update people set operator_grant = $2::text,
            operator_since = case when $2::text is null then null else coalesce(operator_since, now()) end
      where id = $1 returning id as person_id, email, operator_grant, operator_since`,
    [personId, grant],
  );
  return row ? toOperator(row) : undefined;
}
