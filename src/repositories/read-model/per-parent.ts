/** The nested lists' batches: child rows (a user's zones, a zone's records) for many parents in one statement */
import type { Sql } from '../../db/pool';
import { LAZY_TIMES } from './rows';
import { idArray, Params, whereOf } from './statement-parts';

/**
 * A query of child rows (a user's zones, a zone's records) for a batch of parents: its select list, its
 * `from …`, the column naming the parent and the child's id (the pair an index leads with), and its other
 * conditions, not yet put together.
 */
export interface ChildQuery {
  p: Params;
  columns: string;
  from: string;
  parentColumn: string;
  idColumn: string;
  parentIds: readonly number[];
  conditions: string[];
}

/** the child column's name in the select list's output (`r.domain_id` → `domain_id`) */
const outputName = (column: string): string => column.replace(/^\w+\./, '');

/** all the children of every parent of the batch, in `order` */
export function allChildren(query: ChildQuery, order: string[]): string {
  const { p, columns, from, parentColumn, parentIds, conditions } = query;
  const all = [`${parentColumn} = any(${p.add(idArray(parentIds))}::bigint[])`, ...conditions];
  return `select ${columns} from ${from} ${whereOf(all)} order by ${order.join(', ')}`;
}

/**
 * At most `limit` children of each parent after the cursor `after` (by id), in one statement for a whole batch:
 * the child query runs once per parent as a LATERAL subquery on the (parent, id) index, which stops at the
 * limit. A nested list reads what it returns: a window function (row_number() over each parent) read every
 * row of every parent before keeping the first ones, 500,000 rows and 190 ms for the first 10,000 records of
 * a 500,000-record zone, against 3 ms (docs/performance.md). Rows come in `order` (output names).
 */
function firstChildrenPerParent(query: ChildQuery, limit: number, order: string[], after?: number): string {
  const { p, columns, from, parentColumn, idColumn, parentIds, conditions } = query;
  const parents = p.add(idArray(parentIds));
  const ofOneParent = [`${parentColumn} = parents.id`, ...conditions];
  if (after !== undefined) ofOneParent.push(`${idColumn} > ${p.add(after)}`);
  return `select children.* from unnest(${parents}::bigint[]) as parents(id)
    cross join lateral (select ${columns} from ${from} ${whereOf(ofOneParent)} order by ${idColumn} limit ${p.add(limit)}) as children
    order by ${order.map((column) => `children.${column}`).join(', ')}`;
}

/** the first `perParent` children of each parent (all of them without `perParent`), in `order` (qualified columns) */
export function childrenPerParent(query: ChildQuery, perParent: number | undefined, order: string[]): string {
  if (perParent === undefined) return allChildren(query, order);
  return firstChildrenPerParent(query, perParent, order.map(outputName));
}

/** One page of each parent's rows: `first` after the cursor `after`. */
export interface PerParentPage {
  first: number;
  after?: number;
}

/**
 * `first + 1` rows of each parent after the cursor, in id order, in one statement for a whole batch
 * (`firstChildrenPerParent`): a nested connection costs one statement per level of a query, and reads at most
 * `first + 1` rows per parent. The extra row says whether a next page follows. Totals are counted apart, and
 * only when asked for (`countPerParent`).
 */
export async function pagePerParent(sql: Sql, query: ChildQuery, page: PerParentPage): Promise<any[]> {
  return sql.rows(firstChildrenPerParent(query, page.first + 1, [outputName(query.idColumn)], page.after), query.p.values, LAZY_TIMES);
}

/** how many children each parent of the batch has (a parent without any: none in the map), in one statement */
export async function countPerParent(sql: Sql, query: ChildQuery): Promise<Map<number, number>> {
  const { p, from, parentColumn, parentIds, conditions } = query;
  const all = [`${parentColumn} = any(${p.add(idArray(parentIds))}::bigint[])`, ...conditions];
  const rows = await sql.rows(
    `select ${parentColumn} as parent_id, count(*) as count from ${from} ${whereOf(all)} group by ${parentColumn}`,
    p.values,
  );
  return new Map(rows.map((row) => [Number(row.parent_id), Number(row.count)]));
}
