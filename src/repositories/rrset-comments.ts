import type { Sql } from '../db/pool';
import type { JournalCommentChange } from '../entities/change.entity';
import { insertEventsSql } from './events';

/**
 * Comments on RRsets (docs/powerdns-api.md): plain rows in, plain rows out, in the order given per owner and
 * type. ZoneChangesService decides who writes them and when (in a change set's transaction); reads are filtered
 * by the caller's policy in the services.
 */

export interface RrsetComment {
  content: string;
  account: string;
  modifiedAt: Date;
}

export interface RrsetComments {
  owner: string;
  type: string;
  comments: RrsetComment[];
}

/**
 * The text an RRset's comments read as (`Record.comment`, the history): their contents in order, one a line; null
 * for none. PowerDNS keeps a list per RRset (PowerDNS-Admin writes one a record); the other edges keep one.
 */
export function commentText(comments: readonly { content: string }[]): string | null {
  return comments.length ? comments.map((c) => c.content).join('\n') : null;
}

/** the key of an RRset of a zone in `commentTextsOf`'s answer */
export const rrsetKey = (domainId: number, owner: string, type: string): string => `${domainId} ${owner} ${type}`;

/** past this many RRsets asked at once, their zones' comments are read whole (see `commentTextsOf`) */
const BY_ZONE_FROM = 64;

/**
 * The comment texts (`commentText`) of RRsets of any zones, by `rrsetKey`; an RRset without comments is not in
 * the answer. One statement, whatever their number: a few RRsets (a write's) each by its primary key's prefix; many
 * (a page of records, 10,000 at a time) by their zones' comments, a range of the key each, kept for the RRsets
 * asked: comments are few beside records (a page of 10,000 records of one zone with 1,000 comments: 81 ms by
 * 10,000 probes, 9 ms by the zone's comments, median of 11).
 */
export async function commentTextsOf(
  sql: Sql,
  rrsets: readonly { domainId: number; owner: string; type: string }[],
): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  if (!rrsets.length) return texts;
  const rows =
    rrsets.length < BY_ZONE_FROM
      ? await sql.rows<{ domain_id: string; owner: string; type: string; text: string }>(
          `select c.domain_id, c.owner, c.type, string_agg(c.content, E'\\n' order by c.position) as text
             from (select distinct * from unnest($1::bigint[], $2::text[], $3::text[]) as s(domain_id, owner, type)) s
             join rrset_comments c on c.domain_id = s.domain_id and c.owner = s.owner and c.type = s.type
            group by c.domain_id, c.owner, c.type`,
          [rrsets.map((r) => r.domainId), rrsets.map((r) => r.owner), rrsets.map((r) => r.type)],
        )
      : await sql.rows<{ domain_id: string; owner: string; type: string; text: string }>(
          `select domain_id, owner, type, string_agg(content, E'\\n' order by position) as text
             from rrset_comments where domain_id = any($1::bigint[])
            group by domain_id, owner, type`,
          [[...new Set(rrsets.map((r) => r.domainId))]],
        );
  const asked = rrsets.length < BY_ZONE_FROM ? undefined : new Set(rrsets.map((r) => rrsetKey(r.domainId, r.owner, r.type)));
  for (const row of rows) {
    const key = rrsetKey(Number(row.domain_id), row.owner, row.type);
    if (!asked || asked.has(key)) texts.set(key, row.text);
  }
  return texts;
}

/**
 * A change of comments alone (docs/changes.md, «Comments»): its journal row, of kind `comment-changed`, at the
 * zone's serial (no DNS data changed, so no serial step), written as published (nothing to NOTIFY, RFC 1996), and
 * its `zone.comments_changed` event, in one statement of the caller's transaction. Answers the row's id.
 */
export async function journalCommentChange(
  sql: Sql,
  change: {
    domainId: number;
    zone: string;
    serial: number;
    comments: readonly JournalCommentChange[];
    author?: { keyId?: number; tsigKeyId?: number; keyName?: string; userId?: number; email?: string };
  },
): Promise<number> {
  const author = change.author ?? {};
  const [row] = await sql.rows<{ id: string }>(
    `with chg as (
       insert into changes (domain_id, zone, kind, serial_before, serial_after, removed, added, comments,
                            author_key_id, author_key_name, author_user_id, author_tsig_key_id, author_email, published_at)
       values ($1, $2, 'comment-changed', $3, $3, '[]'::jsonb, '[]'::jsonb, $4::jsonb, $5, $6, $7, $8, $9, now()) returning id),
     -- the zone's row is written again, its serial as it is: a conditional GET's version of the zone (its row's
     -- xmin, repositories/data-version.ts) moves with the comments, as it moves with every change of records
     dom as (update domains set serial = serial where id = $1 returning user_id),
     ev as (${insertEventsSql(`select 'zone.comments_changed', $1::bigint, $2::text, dom.user_id, chg.id,
         jsonb_build_object('zone', $2::text, 'serial', $3::bigint) from chg, dom`)})
     select id from chg`,
    [
      change.domainId,
      change.zone,
      change.serial,
      JSON.stringify(change.comments),
      author.keyId ?? null,
      author.keyName ?? null,
      author.userId ?? null,
      author.tsigKeyId ?? null,
      author.email ?? null,
    ],
  );
  // the row and its event reach the live readers as a change's do
  sql.journalWritten();
  return Number(row.id);
}

/** a zone's comments, by owner and type (one owner, and one type, when given) */
export async function commentsOfZone(sql: Sql, domainId: number, filter: { owner?: string; type?: string } = {}): Promise<RrsetComments[]> {
  const rows = await sql.rows<{ owner: string; type: string; content: string; account: string; modified_at: Date }>(
    `select owner, type, content, account, modified_at from rrset_comments
      where domain_id = $1 and ($2::text is null or owner = $2) and ($3::text is null or type = $3)
      order by owner, type, position`,
    [domainId, filter.owner ?? null, filter.type ?? null],
  );
  const sets: RrsetComments[] = [];
  for (const row of rows) {
    let set = sets[sets.length - 1];
    if (!set || set.owner !== row.owner || set.type !== row.type) sets.push((set = { owner: row.owner, type: row.type, comments: [] }));
    set.comments.push({ content: row.content, account: row.account, modifiedAt: new Date(row.modified_at) });
  }
  return sets;
}

/** each named RRset's comments become `comments` (none: they go), in two statements whatever their number */
export async function replaceRrsetComments(sql: Sql, domainId: number, sets: readonly RrsetComments[]): Promise<void> {
  if (!sets.length) return;
  await sql.rows(
    `delete from rrset_comments c using unnest($2::text[], $3::text[]) as s(owner, type)
      where c.domain_id = $1 and c.owner = s.owner and c.type = s.type`,
    [domainId, sets.map((s) => s.owner), sets.map((s) => s.type)],
  );
  const rows = sets.flatMap((set) => set.comments.map((comment, position) => ({ ...comment, owner: set.owner, type: set.type, position })));
  if (!rows.length) return;
  await sql.rows(
    `insert into rrset_comments (domain_id, owner, type, position, content, account, modified_at)
     select $1, * from unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::timestamptz[])`,
    [
      domainId,
      rows.map((r) => r.owner),
      rows.map((r) => r.type),
      rows.map((r) => r.position),
      rows.map((r) => r.content),
      rows.map((r) => r.account),
      rows.map((r) => r.modifiedAt.toISOString()),
    ],
  );
}
