import { createHash } from 'node:crypto';
import { DomainError } from '../../errors/catalogue';

/**
 * What a list's cursors are bound to: the list (its schema coordinate, `Query.domains`), the order it pages in,
 * and the arguments that choose its items (its filters, and for a nested list its parent). A cursor is a place
 * in one such sequence only: a zone's place by name is no place by record count, and a record's place among a
 * zone's MX records says nothing of another zone's records.
 */
export interface CursorScope {
  list: string;
  order: string;
  /** the arguments that choose the items, as given (absent ones left out); a fingerprint of them is kept */
  filter: Record<string, unknown>;
}

/** a list's scope with its filter's fingerprint worked out once: every edge of a page shares it */
export interface BoundScope {
  list: string;
  order: string;
  fingerprint: string;
}

/** the cursors' format: a version ahead of the rest, so that a later format can still read, or refuse, this one */
const VERSION = 1;

/** the longest cursor read: a list's coordinate, an order, a fingerprint and an id fit several times over */
const MAX_CURSOR_LENGTH = 200;

/** the filter's values in one canonical text (keys sorted, absent values left out), hashed: 48 bits are plenty to tell two apart */
function fingerprintOf(filter: Record<string, unknown>): string {
  const canonical = Object.keys(filter)
    .filter((key) => filter[key] !== undefined && filter[key] !== null)
    .sort()
    .map((key) => [key, filter[key] instanceof Date ? (filter[key] as Date).toISOString() : filter[key]]);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url').slice(0, 8);
}

export function bindScope(scope: CursorScope): BoundScope {
  return { list: scope.list, order: scope.order, fingerprint: fingerprintOf(scope.filter) };
}

/**
 * A node's cursor: base64url of `[version, list, order, fingerprint, key]`, opaque to a client (which passes it
 * back as `after` or `before`) and checked when it does (`readCursor`).
 */
export function cursorOf(scope: BoundScope, key: number): string {
  return Buffer.from(JSON.stringify([VERSION, scope.list, scope.order, scope.fingerprint, key]), 'utf8').toString('base64url');
}

/** the argument a cursor came in */
export type CursorArgument = 'after' | 'before';

const notACursor = (argument: CursorArgument) =>
  DomainError.invalid(
    argument,
    `${argument} must be a cursor this list answered (an edge's cursor, pageInfo's ${argument === 'after' ? 'endCursor' : 'startCursor'})`,
    'INVALID_CURSOR',
  );

/** the order's name as the schema spells it (`name_desc` → NAME_DESC) */
const shown = (order: string) => order.toUpperCase();

/**
 * The key (an id) a cursor given as `argument` stands for in this list, or undefined without one. A cursor of
 * another list, order or set of arguments is refused, naming the argument: read as a place in this list it
 * would page from somewhere it is not. A bare id (what every list answered as its cursors before 2026-11-29, and
 * what the REST routes document as `after`) is still taken as `after` and pages as it did; `before` is new and
 * takes only the cursors it is given.
 */
export function readCursor(scope: BoundScope, argument: CursorArgument, value: string | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (argument === 'after' && /^\d{1,16}$/.test(value)) return Number(value);
  if (value.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(value)) throw notACursor(argument);
  let read: unknown;
  try {
    read = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    throw notACursor(argument);
  }
  if (!Array.isArray(read) || read.length !== 5 || read[0] !== VERSION) throw notACursor(argument);
  const [, list, order, fingerprint, key] = read as [number, unknown, unknown, unknown, unknown];
  if (typeof list !== 'string' || typeof order !== 'string' || typeof fingerprint !== 'string' || !Number.isSafeInteger(key))
    throw notACursor(argument);
  if (list !== scope.list)
    throw DomainError.invalid(
      argument,
      `${argument}: this cursor pages ${list}, not ${scope.list}; a list takes only its own cursors`,
      'CURSOR_LIST_MISMATCH',
    );
  if (order !== scope.order)
    throw DomainError.invalid(
      argument,
      `${argument}: this cursor pages ${scope.list} in ${shown(order)} order, not ${shown(scope.order)}; list again from the start in this order`,
      'CURSOR_ORDER_MISMATCH',
    );
  if (fingerprint !== scope.fingerprint)
    throw DomainError.invalid(
      argument,
      `${argument}: this cursor pages ${scope.list} with other arguments (its filters, or another parent's list); list again from the start with these`,
      'CURSOR_FILTER_MISMATCH',
    );
  return key as number;
}
