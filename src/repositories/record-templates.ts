import type { Sql } from '../db/pool';

/** a template's record as saved: the `{zone}` placeholder unexpanded (docs/templates-and-alias.md) */
export interface TemplateRecord {
  owner: string;
  type: string;
  rdata: string;
  ttl: number;
}

export interface RecordTemplateRow {
  id: number;
  /** null: admin-wide */
  userId: number | null;
  name: string;
  records: TemplateRecord[];
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `id, user_id, name, records, created_at, updated_at`;

interface TemplateDbRow {
  id: string;
  user_id: string | null;
  name: string;
  records: TemplateRecord[];
  created_at: Date;
  updated_at: Date;
}

const toRow = (row: TemplateDbRow): RecordTemplateRow => ({
  id: Number(row.id),
  userId: row.user_id === null ? null : Number(row.user_id),
  name: row.name,
  records: row.records,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** the admin-wide templates and, with `userId`, that user's; `onlyUserId` leaves the admin-wide ones out */
export async function listRecordTemplates(sql: Sql, filter: { userId?: number; onlyUserId?: boolean }): Promise<RecordTemplateRow[]> {
  const rows = await sql.rows<TemplateDbRow>(
    `select ${COLUMNS} from record_templates
      where ($1::bigint is null or user_id = $1 or (user_id is null and not $2))
      order by user_id nulls first, name`,
    [filter.userId ?? null, filter.onlyUserId ?? false],
  );
  return rows.map(toRow);
}

export async function findRecordTemplate(sql: Sql, id: number): Promise<RecordTemplateRow | undefined> {
  const [row] = await sql.rows<TemplateDbRow>(`select ${COLUMNS} from record_templates where id = $1`, [id]);
  return row ? toRow(row) : undefined;
}

/** the template a zone of `userId` created with `name` starts with: the user's own first, else the admin-wide one */
export async function recordTemplateForUser(sql: Sql, userId: number, name: string): Promise<RecordTemplateRow | undefined> {
  const [row] = await sql.rows<TemplateDbRow>(
    `select ${COLUMNS} from record_templates where name = $2 and (user_id = $1 or user_id is null) order by user_id nulls last limit 1`,
    [userId, name],
  );
  return row ? toRow(row) : undefined;
}

/** a new template; 'duplicate' when the owner has one of that name, 'no-user' when the user does not exist */
export async function insertRecordTemplate(
  sql: Sql,
  template: { userId: number | null; name: string; records: TemplateRecord[] },
): Promise<RecordTemplateRow | 'duplicate' | 'no-user'> {
  const [row] = await sql.rows<TemplateDbRow>(
    `insert into record_templates (user_id, name, records)
     select $1::bigint, $2, $3::jsonb where $1::bigint is null or exists (select 1 from users where id = $1)
     on conflict (coalesce(user_id, 0), name) do nothing
     returning ${COLUMNS}`,
    [template.userId, template.name, JSON.stringify(template.records)],
  );
  if (row) return toRow(row);
  if (template.userId === null) return 'duplicate';
  const [user] = await sql.rows<{ found: number }>(`select 1 as found from users where id = $1`, [template.userId]);
  return user ? 'duplicate' : 'no-user';
}

/** replaces a template's records (and name); undefined when there is none with that id */
export async function updateRecordTemplate(
  sql: Sql,
  id: number,
  change: { name: string; records: TemplateRecord[] },
): Promise<RecordTemplateRow | undefined> {
  const [row] = await sql.rows<TemplateDbRow>(
    `update record_templates set name = $2, records = $3::jsonb, updated_at = now() where id = $1 returning ${COLUMNS}`,
    [id, change.name, JSON.stringify(change.records)],
  );
  return row ? toRow(row) : undefined;
}

export async function deleteRecordTemplate(sql: Sql, id: number): Promise<boolean> {
  return (await sql.affected(`delete from record_templates where id = $1`, [id])) > 0;
}
