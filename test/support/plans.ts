import { GENERIC_PLAN_SETTINGS, type Sql } from '../../src/db/pool';

/**
 * The plans PostgreSQL keeps for the service's prepared statements (db/prepared-statements.ts), read in tests:
 * which plan a statement runs once it has run five times on a connection, and what that plan read.
 */

/** a scalar parameter's text as pg sends it: text, a number or a boolean */
function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  throw new Error(`no SQL text for a parameter of type ${typeof value}`);
}

/** an array element inside an array literal: a number as it is, bytea in its hex form, text quoted */
const arrayElement = (value: unknown): string =>
  typeof value === 'number'
    ? String(value)
    : value === null
      ? 'NULL'
      : `"${(Buffer.isBuffer(value) ? `\\x${value.toString('hex')}` : scalarText(value)).replace(/["\\]/g, (c) => `\\${c}`)}"`;

/** a statement's parameter as SQL text: null, a number, a boolean, text, bytea, or an array of them */
export function sqlLiteral(value: unknown): string {
  if (value === null) return 'null';
  if (Buffer.isBuffer(value)) return `'\\x${value.toString('hex')}'::bytea`;
  const text = Array.isArray(value) ? `{${value.map(arrayElement).join(',')}}` : scalarText(value);
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * The plan PostgreSQL keeps for `text` as a prepared statement, run with `params` (explain analyze): it plans a
 * prepared statement for its values five times, then keeps its generic plan if that costs no more by its
 * estimates (plan_cache_mode = auto). `rolledBack`: in a transaction rolled back after (a statement that
 * writes). The statement is deallocated at the end: it outlives a transaction, and the connection goes back to
 * the pool.
 */
export async function genericPlan(sql: Sql, text: string, params: unknown[], { rolledBack = false } = {}): Promise<any> {
  if (rolledBack) await sql.rows('begin');
  try {
    await sql.rows(`prepare under_test as ${text}`);
    const execute = `execute under_test(${params.map(sqlLiteral).join(', ')})`;
    for (let i = 0; i < 6; i++) await sql.rows(execute);
    const [row] = await sql.rows(`explain (analyze, format json) ${execute}`);
    return row['QUERY PLAN'][0].Plan;
  } finally {
    if (rolledBack) await sql.rows('rollback');
    await sql.rows('deallocate under_test').catch(() => undefined);
  }
}

/** the rows a plan's scans of `relation` read (kept or removed by their filter), over all their loops */
export function rowsRead(plan: any, relation: string): number {
  const own = plan['Relation Name'] === relation ? (plan['Actual Rows'] + (plan['Rows Removed by Filter'] ?? 0)) * plan['Actual Loops'] : 0;
  return own + (plan.Plans ?? []).reduce((sum: number, child: any) => sum + rowsRead(child, relation), 0);
}

/** every index entry a plan's scans of `index` returned, over all their loops */
export function indexEntriesRead(plan: any, index: string): number {
  const own = plan['Index Name'] === index ? plan['Actual Rows'] * plan['Actual Loops'] : 0;
  return own + (plan.Plans ?? []).reduce((sum: number, child: any) => sum + indexEntriesRead(child, index), 0);
}

/**
 * The generic plan of `text` with `params` (explain, not run), as `RowOptions.plan: 'generic'` has PostgreSQL
 * run it (db/pool.ts): planned without the values, whatever their estimates, in a transaction rolled back.
 */
export async function forcedGenericPlan(sql: Sql, text: string, params: unknown[]): Promise<any> {
  await sql.rows('begin');
  try {
    for (const setting of GENERIC_PLAN_SETTINGS) await sql.rows(`set local ${setting}`);
    await sql.rows(`prepare under_test as ${text}`);
    const [row] = await sql.rows(`explain (format json) execute under_test(${params.map(sqlLiteral).join(', ')})`);
    return row['QUERY PLAN'][0].Plan;
  } finally {
    await sql.rows('rollback');
    await sql.rows('deallocate under_test').catch(() => undefined);
  }
}

/** every node of `plan` that reads `relation` */
export function scansOf(plan: any, relation: string): any[] {
  const own = plan['Relation Name'] === relation && /Scan/.test(plan['Node Type']) ? [plan] : [];
  return own.concat(...(plan.Plans ?? []).map((child: any) => scansOf(child, relation)));
}
