/** The nested lists' batches: child rows (a user's zones, a zone's records) for many parents in one statement */
import type { Sql } from '../../db/pool';
import { LAZY_TIMES } from './rows';
import { idArray, keyset, type Params, whereOf } from './statement-parts';
import type { PageRequest } from './rows';

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
 * At most `limit` children of each parent past the cursors (ids), in one statement for a whole batch: the child
 * query runs once per parent as a LATERAL subquery on the (parent, id) index, which stops at the limit (read
 * backwards for a page from the end). A nested list reads what it returns: a window function (row_number() over
 * each parent) read every row of every parent before keeping the first ones, 500,000 rows and 190 ms for the
 * first 10,000 records of a 500,000-record zone, against 3 ms (docs/performance.md). Rows come in `order`
 * (output names).
 */
function firstChildrenPerParent(query: ChildQuery, limit: number, order: string[], page: Omit<PerParentPage, 'first'> = {}): string {
  const { p, columns, from, parentColumn, idColumn, parentIds, conditions } = query;
  const parents = p.add(idArray(parentIds));
  const paged = keyset(p, idColumn, { first: limit, ...page });
  const ofOneParent = [`${parentColumn} = parents.id`, ...conditions, ...paged.conditions];
  return `select children.* from unnest(${parents}::bigint[]) as parents(id)
    cross join lateral (select ${columns} from ${from} ${whereOf(ofOneParent)} ${paged.order} limit ${p.add(limit)}) as children
    order by ${order.map((column) => `children.${column}`).join(', ')}`;
}

/** the first `perParent` children of each parent (all of them without `perParent`), in `order` (qualified columns) */
export function childrenPerParent(query: ChildQuery, perParent: number | undefined, order: string[]): string {
  if (perParent === undefined) return allChildren(query, order);
  return firstChildrenPerParent(query, perParent, order.map(outputName));
}

/** One page of each parent's rows, in id order: `first` past the cursors `after` and `before`, from the end with `fromEnd`. */
export type PerParentPage = PageRequest;

/**
 * `first + 1` rows of each parent past the cursors, in one statement for a whole batch (`firstChildrenPerParent`):
 * a nested connection costs one statement per level of a query, and reads at most `first + 1` rows per parent.
 * The extra row says whether the list goes on the way it was read. Rows come in id order, or from the end
 * backwards (`fromEnd`). Totals are counted apart, and only when asked for (`countPerParent`).
 */
export async function pagePerParent(sql: Sql, query: ChildQuery, page: PerParentPage): Promise<any[]> {
  const id = outputName(query.idColumn);
  return sql.rows(firstChildrenPerParent(query, page.first + 1, [page.fromEnd ? `${id} desc` : id], page), query.p.values, LAZY_TIMES);
}

/**
 * The parents of the batch that have a child past their anchor (an id; none: any child) on one side, in one
 * statement: whether a parent's list goes on past its page where the page's own read could not tell
 * (`pageInfo.hasPreviousPage` after a cursor). Each parent's anchor is its page's edge node, so each probe is
 * one step of the (parent, id) index.
 */
export async function parentsWithChildBeyond(
  sql: Sql,
  query: ChildQuery,
  anchors: ReadonlyMap<number, number | undefined>,
  side: 'after' | 'before',
): Promise<Set<number>> {
  const { p, from, parentColumn, idColumn, conditions } = query;
  const ids = [...anchors.keys()];
  const parents = `unnest(${p.add(idArray(ids))}::bigint[], ${p.add(`{${ids.map((id) => anchors.get(id) ?? 'NULL').join(',')}}`)}::bigint[])`;
  const past =
    side === 'after' ? `${idColumn} > coalesce(parents.anchor, 0)` : `${idColumn} < coalesce(parents.anchor, ${Number.MAX_SAFE_INTEGER})`;
  const rows = await sql.rows(
    `select parents.id from ${parents} as parents(id, anchor)
      where exists (select 1 from ${from} ${whereOf([`${parentColumn} = parents.id`, ...conditions, past])})`,
    p.values,
  );
  return new Set(rows.map((row) => Number(row.id)));
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
