/**
 * The pages of every connection (Relay's cursor connections): what a page asks for once its cursors are read
 * (`PageWindow`), what it reads (`readOf`, and one row past a side with `probeOf`), and the connection's value made
 * of that (`pageOf`, `connection`). No decorators here: the loaders use it without the schema's types.
 */
import type { GraphQLResolveInfo } from 'graphql';
import { asksFor } from './selection';
import { cursorOf, type BoundScope } from './inputs/cursors';
import type { PageRequest } from '../repositories/read-model/rows';

/** a page's `pageInfo` (types/connection.ts's PageInfo is its GraphQL type) */
export interface PageInfoValue {
  hasNextPage: boolean;
  endCursor: string | null;
  hasPreviousPage: boolean;
  startCursor: string | null;
}

export interface ConnectionValue<T> {
  nodes: T[];
  pageInfo: PageInfoValue;
  /** counted only when `totalCount` is selected */
  countAll: () => Promise<number>;
  /** a node's cursor (`after` pages after it, `before` before it) */
  cursorOf: (node: T) => string;
}

/**
 * A page as a client asked for it, its cursors read (inputs/cursors.ts): `size` nodes after `after`, or with
 * `fromEnd` (`last`) the `size` nodes nearest `before` (or the list's end); either bound may come with either.
 */
export interface PageWindow {
  size: number;
  fromEnd: boolean;
  after?: number;
  before?: number;
}

/** the nodes on each side of a page that its read did not tell: which ones the page's selection asks for */
export interface SidesAsked {
  /** `pageInfo.hasNextPage` */
  next: boolean;
  /** `pageInfo.hasPreviousPage` */
  previous: boolean;
}

export const sidesAsked = (info: GraphQLResolveInfo): SidesAsked => ({
  next: asksFor(info, 'pageInfo', 'hasNextPage'),
  previous: asksFor(info, 'pageInfo', 'hasPreviousPage'),
});

/**
 * What a page's read is (PageRequest): one row more than the page, to know without counting whether the list
 * goes on in the direction read. A read from the end reads the list backwards, nearest `before` first (an index
 * read in reverse, never an OFFSET); `pageOf` puts its rows back in the list's order.
 */
export const readOf = (window: PageWindow): PageRequest => ({
  first: window.size + 1,
  after: window.after,
  before: window.before,
  fromEnd: window.fromEnd,
});

/**
 * Whether the list has nodes past a page on one side that the page's own read could not tell (the side it did
 * not read towards, or the side a bound closed): a read of one row past the page's edge node, or for an empty
 * page past the bound the client gave (no node lies between the bounds, so past one is past the other).
 */
export function probeOf(window: PageWindow, nodes: readonly { id: number }[], side: 'next' | 'previous'): PageRequest {
  if (side === 'next') return { first: 1, after: nodes.length ? nodes[nodes.length - 1].id : window.after };
  return { first: 1, before: nodes.length ? nodes[0].id : window.before, fromEnd: true };
}

/** which sides of a page need a probe: those asked for that the read leaves open */
export function sidesToProbe(window: PageWindow, readMore: boolean, asked: SidesAsked): SidesAsked {
  // the side read towards is told by the extra row, unless a bound the client set there stopped the read
  const forward = !window.fromEnd;
  const next = forward ? !readMore && window.before !== undefined : window.before !== undefined;
  const previous = forward ? window.after !== undefined : !readMore && window.after !== undefined;
  return { next: next && asked.next, previous: previous && asked.previous };
}

/** a page's nodes from its read: at most its size, in the list's order */
export function nodesOf<T>(window: PageWindow, rows: readonly T[]): T[] {
  const read = rows.slice(0, window.size);
  return window.fromEnd ? read.reverse() : read;
}

/**
 * A page from its read (`rows`, in the order read, one more than the page when the list goes on that way) and
 * what the probes found past its sides (undefined: not probed, so nothing there: no bound on that side, or not
 * asked for).
 */
export function pageOf<T extends { id: number }>(
  window: PageWindow,
  rows: T[],
  scope: BoundScope,
  beyond: { next?: boolean; previous?: boolean },
  countAll: () => Promise<number>,
): ConnectionValue<T> {
  const readMore = rows.length > window.size;
  const nodes = nodesOf(window, rows);
  const first = nodes[0];
  const last = nodes[nodes.length - 1];
  return {
    nodes,
    pageInfo: {
      hasNextPage: (!window.fromEnd && readMore) || beyond.next === true,
      endCursor: last ? cursorOf(scope, last.id) : null,
      hasPreviousPage: (window.fromEnd && readMore) || beyond.previous === true,
      startCursor: first ? cursorOf(scope, first.id) : null,
    },
    countAll,
    cursorOf: (node) => cursorOf(scope, node.id),
  };
}

/**
 * A page of a top-level list. When the connection's field (`info`) asks for `totalCount`, the count is read beside
 * the page rather than after it: two statements on two of the pool's connections at once, so that a page of
 * 100,000 matches costs the longer of the two, not both. `hasPreviousPage` after `after` (and `hasNextPage`
 * before `before`) is read only when asked for, by one probe of one row (`probeOf`).
 */
export async function connection<T extends { id: number }>(
  window: PageWindow,
  fetch: (request: PageRequest) => Promise<T[]>,
  count: () => Promise<number>,
  info: GraphQLResolveInfo,
  scope: BoundScope,
  /** what reads one row past a page's side (`probeOf`): the list's plainest read, without what a page reads beside its rows */
  probe: (request: PageRequest) => Promise<unknown[]> = fetch,
): Promise<ConnectionValue<T>> {
  const counted = asksFor(info, 'totalCount') ? count() : undefined;
  // a page that fails fails the field; its count's failure then is told by no one
  counted?.catch(() => undefined);
  const rows = await fetch(readOf(window));
  const probes = sidesToProbe(window, rows.length > window.size, sidesAsked(info));
  const nodes = nodesOf(window, rows);
  const [next, previous] = await Promise.all([
    probes.next ? probe(probeOf(window, nodes, 'next')).then((found) => found.length > 0) : undefined,
    probes.previous ? probe(probeOf(window, nodes, 'previous')).then((found) => found.length > 0) : undefined,
  ]);
  return pageOf(window, rows, scope, { next, previous }, counted ? () => counted : count);
}
