import type { ComplexityEstimatorArgs } from 'graphql-query-complexity';
import { DomainError } from '../../errors/catalogue';
import type { GraphQLContext } from '../context';

/** Nested lists (User.domains, Domain.records) are not paged; the cost model assumes this many items each. */
export const NESTED_LIST_ESTIMATE = 10;

/** A page costs its size times what each item asks for. */
export function listComplexity({ args, childComplexity }: ComplexityEstimatorArgs): number {
  const first = typeof args.first === 'number' ? args.first : 100;
  return 1 + first * Math.max(childComplexity, 1);
}

/** A nested list costs its `first` (or the estimate) times what each item asks for. */
export function nestedListComplexity({ args, childComplexity }: ComplexityEstimatorArgs): number {
  const first = typeof args.first === 'number' ? args.first : NESTED_LIST_ESTIMATE;
  return first * Math.max(childComplexity, 1);
}

export function firstOf(args: { first: number }, ctx: GraphQLContext): number {
  const max = ctx.services.settings.maxPageSize;
  if (args.first > max) throw DomainError.invalid('first', `first must be at most ${max}`, 'PAGE_TOO_LARGE');
  return args.first;
}

/** `first` of a nested list: a whole number of at least 1, or absent for all. */
export function nestedFirst(first: number | null | undefined): number | undefined {
  if (first === null || first === undefined) return undefined;
  if (first < 1) throw DomainError.invalid('first', 'first must be at least 1', 'MIN');
  return first;
}

/** the page of a nested connection: `first` within 1..MAX_PAGE_SIZE, `after` a cursor */
export function nestedPage(args: { first: number; after?: string | null }, ctx: GraphQLContext): { first: number; after?: number } {
  if (!Number.isInteger(args.first) || args.first < 1) throw DomainError.invalid('first', 'first must be at least 1', 'MIN');
  const first = firstOf(args, ctx);
  if (args.after === null || args.after === undefined) return { first };
  if (!/^\d{1,16}$/.test(args.after)) throw DomainError.invalid('after', 'after must be a cursor returned as pageInfo.endCursor', 'INVALID_CURSOR');
  return { first, after: Number(args.after) };
}
