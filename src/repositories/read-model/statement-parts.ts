/** What every read statement is built of: its parameters, a key list, its conditions, a keyset page */
import type { PageRequest } from './rows';

/** Statement text and its parameters, built together: `add` gives a value its `$n`. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * A key list as one PostgreSQL array parameter (`= any($1::bigint[])`): one bind value and one plan whatever
 * the batch's size, where `in ($1 … $1000)` made PostgreSQL parse, bind and plan a thousand parameters per
 * batch.
 */
export const idArray = (ids: readonly number[]): string => `{${ids.map((id) => Math.trunc(Number(id))).join(',')}}`;

/** `where …` of the conditions (`true` when there are none) */
export const whereOf = (conditions: string[]): string => `where ${conditions.length ? conditions.join(' and ') : 'true'}`;

/**
 * The keyset conditions and order of a page of a list ordered by `column` (unique), `descending` or not: the
 * rows past `after` and short of `before` in the list's order, read from the end with `fromEnd`. A bound is
 * compared with `bound(id)`, the column's value for that row (the id itself when the list is in id order).
 */
export function keyset(
  p: Params,
  column: string,
  request: PageRequest,
  descending = false,
  bound: (id: string) => string = (id) => id,
): { conditions: string[]; order: string } {
  const conditions: string[] = [];
  if (request.after !== undefined) conditions.push(`${column} ${descending ? '<' : '>'} ${bound(p.add(request.after))}`);
  if (request.before !== undefined) conditions.push(`${column} ${descending ? '>' : '<'} ${bound(p.add(request.before))}`);
  const reversed = descending !== Boolean(request.fromEnd);
  return { conditions, order: `order by ${column}${reversed ? ' desc' : ''}` };
}

/** a page by keyset on `column`: `first` rows past the cursors, in `column` order (all rows without a request) */
export function page(p: Params, conditions: string[], column: string, request?: PageRequest): string {
  if (!request) return `${whereOf(conditions)} order by ${column}`;
  const paged = keyset(p, column, request);
  return `${whereOf([...conditions, ...paged.conditions])} ${paged.order} limit ${p.add(request.first)}`;
}
