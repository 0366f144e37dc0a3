import type { Sql } from '../db/pool';

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
