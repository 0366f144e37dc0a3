import type { JournalCommentChange, JournalFinding, JournalRecord } from '../entities/change.entity';
import type { Sql } from '../db/pool';
import { keyset, type PageRequest, Params } from './read-model';

/** One journal row as the change history shows it. */
export interface HistoryRow {
  id: number;
  kind: string;
  serialBefore: number | null;
  serialAfter: number;
  createdAt: Date;
  added: JournalRecord[];
  /** each with the id of the row the change deleted; none for a row edited in place, or journalled without ids */
  removed: RemovedRecord[];
  authorKeyId: number | null;
  authorKeyName: string | null;
  authorUserId: number | null;
  /** the TSIG key of a DNS UPDATE (RFC 2136); then authorKeyId is null */
  authorTsigKeyId: number | null;
  /** the person who made the change, signed in (docs/people.md) */
  authorEmail: string | null;
  /** the findings its plan answered (docs/changes.md, «Checks on every plan»); none for other writes */
  findings: JournalFinding[];
  /** the RRsets' comments it changed (docs/changes.md, «Comments»); none for most */
  comments: JournalCommentChange[];
}

/** a record a change removed, with the id of its row where the change deleted it (changes.removed_ids) */
export type RemovedRecord = JournalRecord & { id?: number };

/** `removed` with each deleted row's id from `removed_ids` (null: a change journalled before them, or without rows) */
function withRemovedIds(removed: JournalRecord[], ids: (string | number | null)[] | null): RemovedRecord[] {
  if (!ids) return removed;
  return removed.map((record, i) => (ids[i] === null || ids[i] === undefined ? record : { ...record, id: Number(ids[i]) }));
}

/** the columns a history row is read from (also the change feed's) */
export const HISTORY_COLUMNS = `id, kind, serial_before, serial_after, created_at, added, removed, removed_ids, author_key_id, author_key_name, author_user_id, author_tsig_key_id, author_email, findings, comments`;

/** a journal row (HISTORY_COLUMNS) as the history shows it */
export const toHistoryRow = (r: any): HistoryRow => ({
  id: Number(r.id),
  kind: r.kind,
  serialBefore: r.serial_before === null ? null : Number(r.serial_before),
  serialAfter: Number(r.serial_after),
  createdAt: new Date(r.created_at),
  added: r.added,
  removed: withRemovedIds(r.removed, r.removed_ids),
  authorKeyId: r.author_key_id === null ? null : Number(r.author_key_id),
  authorKeyName: r.author_key_name,
  authorUserId: r.author_user_id === null ? null : Number(r.author_user_id),
  authorTsigKeyId: r.author_tsig_key_id == null ? null : Number(r.author_tsig_key_id),
  authorEmail: r.author_email ?? null,
  findings: r.findings ?? [],
  comments: r.comments ?? [],
});

/**
 * The rows the history shows: the user's changes. A step of the signer alone (`zone-signed`: a refresh, a key
 * step, DNSSEC enabled) raises the serial for the secondaries but changes no user record.
 */
const USER_CHANGES = `kind <> 'zone-signed'`;

/** A zone's journal rows, newest first, keyset-paged by id (`changes_zone_id_index`, read either way). */
export async function zoneHistory(sql: Sql, zone: { id: number; name: string }, page: PageRequest): Promise<HistoryRow[]> {
  const p = new Params();
  const ofZone = [`zone = ${p.add(zone.name)}`, `domain_id = ${p.add(zone.id)}`, USER_CHANGES];
  const paged = keyset(p, 'id', page, true);
  const rows = await sql.rows(
    `select ${HISTORY_COLUMNS} from changes where ${[...ofZone, ...paged.conditions].join(' and ')} ${paged.order} limit ${p.add(page.first)}`,
    p.values,
  );
  return rows.map(toHistoryRow);
}

/**
 * The zone's change that left it at `serial` (the newest such row), as the history shows it; undefined if none is
 * kept. `commentsOnly`: the newest change of comments alone at that serial (which steps no serial), else the
 * newest that is none.
 */
export async function zoneChangeAt(
  sql: Sql,
  zone: { id: number; name: string },
  serial: number,
  commentsOnly = false,
): Promise<HistoryRow | undefined> {
  const [row] = await sql.rows(
    `select ${HISTORY_COLUMNS} from changes
      where zone = $1 and domain_id = $2 and serial_after = $3 and ${USER_CHANGES} and (kind = 'comment-changed') = $4
      order by id desc limit 1`,
    [zone.name, zone.id, serial, commentsOnly],
  );
  return row ? toHistoryRow(row) : undefined;
}

export async function countZoneHistory(sql: Sql, zone: { id: number; name: string }): Promise<number> {
  const [row] = await sql.rows(`select count(*)::bigint as n from changes where zone = $1 and domain_id = $2 and ${USER_CHANGES}`, [
    zone.name,
    zone.id,
  ]);
  return Number(row.n);
}

/** The id of the newest journal row that left the zone at `serial`, or undefined when the kept journal has none. */
export async function rowAtSerial(sql: Sql, zone: { id: number; name: string }, serial: number): Promise<number | undefined> {
  const [row] = await sql.rows(`select max(id) as id from changes where zone = $1 and domain_id = $2 and serial_after = $3`, [
    zone.name,
    zone.id,
    serial,
  ]);
  return row?.id === null || row?.id === undefined ? undefined : Number(row.id);
}

/** The zone's journal rows with ids in (afterId, upToId], in the order they were written. */
export async function journalBetween(sql: Sql, zone: { id: number; name: string }, afterId: number, upToId: number): Promise<HistoryRow[]> {
  const rows = await sql.rows(
    `select ${HISTORY_COLUMNS} from changes where zone = $1 and domain_id = $2 and id > $3 and id <= $4 and ${USER_CHANGES} order by id`,
    [zone.name, zone.id, afterId, upToId],
  );
  return rows.map(toHistoryRow);
}

/**
 * The zone's journal rows after `afterId`, oldest first, at most `limit`: what a subscription that starts (or
 * resumes) after that row has to be sent before the live ones (services/operations/live-updates.ts).
 */
export async function zoneChangesAfter(
  sql: Sql,
  zone: { id: number; name: string },
  afterId: number,
  limit: number,
): Promise<HistoryRow[]> {
  const rows = await sql.rows(
    `select ${HISTORY_COLUMNS} from changes where zone = $1 and domain_id = $2 and id > $3 and ${USER_CHANGES} order by id limit $4`,
    [zone.name, zone.id, afterId, limit],
  );
  return rows.map(toHistoryRow);
}
