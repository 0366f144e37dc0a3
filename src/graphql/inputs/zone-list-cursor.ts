import { DomainError } from '../../errors/catalogue';
import type { DomainOrderEnum } from './page.args';

/**
 * The zone list's cursors (`Query.domains`, whose `orderBy` chooses among orders): opaque, each naming the
 * order it pages beside its zone, so that a cursor of one order given to another is refused rather than read as
 * a position it is not (a zone's place by name is no place by record count). The lists in id order (records,
 * users, the history) keep the id as their cursor: it is its own order's position.
 */
export function zoneListCursor(order: DomainOrderEnum, id: number): string {
  return Buffer.from(`zones:${order}:${id}`, 'utf8').toString('base64url');
}

/**
 * The zone id a zone list's `after` pages after, in `order`. A bare id (the cursors before 2026-11-29, and what
 * the REST layer and older clients still pass) pages any order, as it did.
 */
export function zoneListAfter(after: string | null | undefined, order: DomainOrderEnum): number | undefined {
  if (after === null || after === undefined) return undefined;
  if (/^\d{1,16}$/.test(after)) return Number(after);
  const read = /^zones:([a-z_]{1,32}):(\d{1,16})$/.exec(Buffer.from(after, 'base64url').toString('utf8'));
  if (!read) throw DomainError.invalid('after', 'after must be a cursor returned as pageInfo.endCursor', 'INVALID_CURSOR');
  if (read[1] !== order) {
    throw DomainError.invalid(
      'after',
      `after: this cursor pages the zones in ${read[1].toUpperCase()} order, not ${order.toUpperCase()}; list again from the start in this order`,
      'CURSOR_ORDER_MISMATCH',
    );
  }
  return Number(read[2]);
}
