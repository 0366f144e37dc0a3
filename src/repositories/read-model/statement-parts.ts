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

/** a page by keyset on `column`: after the cursor, `first` rows, in `column` order (all rows without a request) */
export function page(p: Params, conditions: string[], column: string, request?: PageRequest): string {
  if (!request) return `${whereOf(conditions)} order by ${column}`;
  const all = request.after === undefined ? conditions : [...conditions, `${column} > ${p.add(request.after)}`];
  return `${whereOf(all)} order by ${column} limit ${p.add(request.first)}`;
}
