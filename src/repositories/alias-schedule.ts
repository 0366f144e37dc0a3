/**
 * The schedule is kept by the write engine, in the statement that writes the records (zone-writes.ts), so the
 * worker reads only the due rows: an ALIAS/ANAME inserted gets its row, due now (`scheduleInsertedSql`); an edit
 * makes it due now, and a record turned from or into one is scheduled or made due
 * (`scheduleUpdatedSql`); one deleted leaves its row due now (`dueOnDeleteSql`), a tombstone: the lease finds
 * its record gone, and the worker removes its derived rows, then the row (`forgetAlias`, alias-refresh.ts).
 */
import { FLATTENED_TYPE_NAMES } from '../dns/record-types';

/** the never-served types as an SQL list, for the schedule's statements */
export const FLATTENED_TYPES_SQL = `(${[...FLATTENED_TYPE_NAMES].map((t) => `'${t}'`).join(', ')})`;

/** a CTE body: schedule rows, due now, for the ALIAS/ANAME among `inserted` (a relation of id, type, rdata) */
export const scheduleInsertedSql = (inserted: string, domainId: string): string =>
  `insert into alias_refresh (record_id, domain_id, target)
     select i.id, ${domainId}, i.rdata from ${inserted} i where i.type in ${FLATTENED_TYPES_SQL}
   on conflict (record_id) do nothing`;

/**
 * a CTE body for an updated record (`id`, its new `type` and `rdata` as placeholders), written only when
 * `written` (an SQL condition: the change's compare-and-set passed): an ALIAS/ANAME edited (its target, or its
 * owner: the derived rows move with it), or a record that became one, is due now; a record of any other type
 * that had a schedule row (it was one) too, a tombstone
 */
export const scheduleUpdatedSql = (flattened: boolean, id: string, rdata: string, domainId: string, written: string): string =>
  flattened
    ? `insert into alias_refresh (record_id, domain_id, target) select ${id}::bigint, ${domainId}, ${rdata}::text where ${written}
       on conflict (record_id) do update set target = excluded.target, next_refresh_at = now()`
    : `update alias_refresh set next_refresh_at = now() where record_id = ${id}::bigint and ${written}`;

/** a CTE body or statement: the schedule rows of deleted records (`ids`, a bigint[] placeholder) due now, when `written` */
export const dueOnDeleteSql = (ids: string, written: string): string =>
  `update alias_refresh set next_refresh_at = now() where record_id = any(${ids}::bigint[]) and ${written}`;
