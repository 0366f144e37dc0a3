import type { ComplexityEstimatorArgs } from 'graphql-query-complexity';
import { DomainError } from '../../errors/catalogue';
import type { GraphQLContext } from '../context';
import { readCursor, type BoundScope } from '../inputs/cursors';
import type { PageWindow } from '../pages';
import { SMALL_PAGE } from '../inputs/page.args';

/** What the cost of an operation is measured with (limits.ts hands it to each field's `complexity` as `context`). */
export interface CostContext {
  /** MAX_PAGE_SIZE: the most items a list returns per parent, top-level page or nested list */
  maxPageSize: number;
  /**
   * what a nested list without `first` holds at most per parent today, by `Type.field` (`User.domains`: the
   * most zones a user visible to the key has; `Domain.records`: the largest zone's records), when read
   */
  nestedBounds?: Readonly<Record<string, number>>;
}

/** a page's size without `first` (a top-level list, a nested connection), and what it is costed as */
export const DEFAULT_PAGE_SIZE = 100;

/** the items a page (a top-level list, a nested connection) is costed as: its `first` or `last`, or DEFAULT_PAGE_SIZE */
export function pageItems(args: Record<string, unknown>): number {
  if (typeof args.first === 'number') return args.first;
  return typeof args.last === 'number' ? args.last : DEFAULT_PAGE_SIZE;
}

/** A page costs its size times what each item asks for. */
export function listComplexity({ args, childComplexity }: ComplexityEstimatorArgs): number {
  return 1 + pageItems(args) * Math.max(childComplexity, 1);
}

/**
 * the items a nested list (`list`: `User.domains`, `Domain.records`) is costed as per parent: its `first`, or
 * without one MAX_PAGE_SIZE, or what its parents hold today when the CostContext knows that is less
 */
export function nestedItems(args: Record<string, unknown>, cost: CostContext, list: string): number {
  const bound = cost.nestedBounds?.[list];
  return typeof args.first === 'number' ? args.first : Math.min(cost.maxPageSize, bound ?? cost.maxPageSize);
}

/**
 * A nested list (User.domains, Domain.records) costs what it can return per parent, times what each item asks
 * for: its `first`, or without one MAX_PAGE_SIZE (`nestedFirst`), or less when the CostContext knows that no
 * parent holds that many today (`nestedBounds`: limits.ts reads them for an operation that the worst case
 * refuses, so `users(first: 10) { nodes { domains { records { … } } } }` runs for tenants with ordinary
 * zones). Costed at a guess of 10 items while it returned all of them, `domains(first: 100) { nodes { records
 * { id } } }` read every record of 100 zones under a cost of about 1,000.
 */
export function nestedListComplexity({ args, childComplexity, context, type, field }: ComplexityEstimatorArgs): number {
  const cost = context as CostContext | undefined;
  if (cost === undefined) throw new Error('nestedListComplexity needs the CostContext (MAX_PAGE_SIZE)');
  return nestedItems(args, cost, `${type?.name}.${field?.name}`) * Math.max(childComplexity, 1);
}

export function firstOf(args: { first: number }, ctx: GraphQLContext): number {
  const max = ctx.services.settings.maxPageSize;
  if (args.first > max) throw DomainError.invalid('first', `first must be at most ${max}`, 'PAGE_TOO_LARGE');
  return args.first;
}

/**
 * How many items a nested list returns per parent: `first`, 1 to MAX_PAGE_SIZE as a page of a top-level list,
 * and MAX_PAGE_SIZE when it is absent, which is what the list is costed as (nestedListComplexity); the
 * connection beside it (recordsConnection, domainsConnection) pages through more. Undefined (all of them) only
 * for the REST layer's own documents (`wholeNestedLists`).
 */
export function nestedFirst(first: number | null | undefined, ctx: GraphQLContext): number | undefined {
  if (first === null || first === undefined) return ctx.wholeNestedLists ? undefined : ctx.services.settings.maxPageSize;
  if (first < 1) throw DomainError.invalid('first', 'first must be at least 1', 'MIN');
  return firstOf({ first }, ctx);
}

/** a connection's page arguments as a client gives them (cursors not read yet) */
export interface PageArguments {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

/**
 * The page a connection's arguments ask for (Relay's cursor connections): `first` nodes after `after` (forward,
 * `defaultSize` without either size), or the `last` nodes before `before` (backward); a bound of the other
 * side may come with either. A size is 1 to `maxSize` (MAX_PAGE_SIZE for most lists), and only one of them:
 * both would be two pages at once. The cursors must be this list's (`scope`: inputs/cursors.ts).
 */
export function pageWindow(args: PageArguments, scope: BoundScope, sizes: { defaultSize: number; maxSize: number }): PageWindow {
  const first = args.first ?? undefined;
  const last = args.last ?? undefined;
  if (first !== undefined && last !== undefined)
    throw DomainError.invalid(
      'last',
      'give first or last, not both: first pages forward (after `after`), last backward (before `before`)',
      'FIRST_AND_LAST',
    );
  const field = last !== undefined ? 'last' : 'first';
  const size = last ?? first ?? sizes.defaultSize;
  if (!Number.isInteger(size) || size < 1) throw DomainError.invalid(field, `${field} must be at least 1`, 'MIN');
  if (size > sizes.maxSize) throw DomainError.invalid(field, `${field} must be at most ${sizes.maxSize}`, 'PAGE_TOO_LARGE');
  return {
    size,
    fromEnd: last !== undefined,
    after: readCursor(scope, 'after', args.after),
    before: readCursor(scope, 'before', args.before),
  };
}

/** the page of a zone's own history (Domain.changes, Domain.dnssecEvents): SMALL_PAGE's sizes */
export function smallPage(args: PageArguments, scope: BoundScope): PageWindow {
  return pageWindow(args, scope, SMALL_PAGE);
}

/** the page of a list sized by MAX_PAGE_SIZE (every top-level list, the nested connections), DEFAULT_PAGE_SIZE without a size */
export function listPage(args: PageArguments, scope: BoundScope, ctx: GraphQLContext): PageWindow {
  return pageWindow(args, scope, { defaultSize: DEFAULT_PAGE_SIZE, maxSize: ctx.services.settings.maxPageSize });
}
