import type { Sql } from '../db/pool';
import { keyset, type PageRequest, Params } from './read-model';

/**
 * The audit log's table (`audit_events`, docs/audit-log.md): the rows the audit service writes, the
 * admin's reads, the first use of a key (marked once), and the retention pass.
 */
export interface AuditEventRow {
  id: number;
  at: Date;
  kind: string;
  actorKeyType: 'api' | 'tsig' | 'session' | null;
  actorKeyId: number | null;
  actorKeyName: string | null;
  actorUserId: number | null;
  actorAdmin: boolean;
  /** the person who acted (signed in: `actorKeyType` session), by e-mail (docs/people.md) */
  actorEmail: string | null;
  subject: string | null;
  detail: Record<string, unknown>;
  sourceAddress: string | null;
  /** how many attempts a summarised row stands for (failed authentications); 1 otherwise */
  count: number;
}

export interface AuditEventInsert {
  kind: string;
  actorKeyType?: 'api' | 'tsig' | 'session' | null;
  actorKeyId?: number | null;
  actorKeyName?: string | null;
  actorUserId?: number | null;
  actorAdmin?: boolean;
  actorEmail?: string | null;
  subject?: string | null;
  detail?: Record<string, unknown>;
  sourceAddress?: string | null;
}

const COLUMNS =
  'id, at, kind, actor_key_type, actor_key_id, actor_key_name, actor_user_id, actor_admin, actor_email, subject, detail, source_address, count';
const toRow = (row: any): AuditEventRow => ({
  id: Number(row.id),
  at: new Date(row.at),
  kind: row.kind,
  actorKeyType: row.actor_key_type,
  actorKeyId: row.actor_key_id === null ? null : Number(row.actor_key_id),
  actorKeyName: row.actor_key_name,
  actorUserId: row.actor_user_id === null ? null : Number(row.actor_user_id),
  actorAdmin: row.actor_admin,
  actorEmail: row.actor_email,
  subject: row.subject,
  detail: row.detail,
  sourceAddress: row.source_address,
  count: Number(row.count),
});

export async function insertAuditEvent(sql: Sql, event: AuditEventInsert): Promise<void> {
  await sql.rows(
    `insert into audit_events (kind, actor_key_type, actor_key_id, actor_key_name, actor_user_id, actor_admin, subject, detail, source_address, actor_email)
     values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10)`,
    [
      event.kind,
      event.actorKeyType ?? null,
      event.actorKeyId ?? null,
      event.actorKeyName ?? null,
      event.actorUserId ?? null,
      event.actorAdmin ?? false,
      event.subject ?? null,
      JSON.stringify(event.detail ?? {}),
      event.sourceAddress ?? null,
      event.actorEmail ?? null,
    ],
  );
}

/**
 * Adds failed authentications to their summary rows, one per source address and minute
 * (`audit_events_failed_auth_unique`), in one statement: processes that counted the same address in the same
 * minute add to one row.
 */
export async function addFailedAuthentications(sql: Sql, counts: { sourceAddress: string; minute: Date; count: number }[]): Promise<void> {
  if (!counts.length) return;
  await sql.rows(
    `insert into audit_events (kind, at, source_address, count)
     select 'authentication-failed', x.minute, x.source, x.n
       from json_to_recordset($1::json) as x(source text, minute timestamptz, n int)
     on conflict (source_address, at) where kind = 'authentication-failed'
     do update set count = audit_events.count + excluded.count`,
    [JSON.stringify(counts.map((c) => ({ source: c.sourceAddress, minute: c.minute.toISOString(), n: c.count })))],
  );
}

/**
 * refusals summarised per kind, key and minute (policy-refused, rate-limited, quota-exceeded, key-wrong-network):
 * one upsert per flush; the row keeps the last message and source address
 */
export async function addRefusals(
  sql: Sql,
  counts: {
    kind: string;
    minute: Date;
    count: number;
    actor: Pick<AuditEventInsert, 'actorKeyType' | 'actorKeyId' | 'actorKeyName' | 'actorUserId' | 'actorAdmin'>;
    detail: Record<string, unknown>;
    subject?: string | null;
    sourceAddress?: string | null;
  }[],
): Promise<void> {
  if (!counts.length) return;
  await sql.rows(
    `insert into audit_events (kind, at, actor_key_type, actor_key_id, actor_key_name, actor_user_id, actor_admin, detail, subject, source_address, count)
     select x.kind, x.minute, x.key_type, x.key_id, x.key_name, x.user_id, x.admin, x.detail, x.subject, x.source, x.n
       from json_to_recordset($1::json) as x(kind text, minute timestamptz, key_type text, key_id bigint, key_name text, user_id bigint, admin boolean, detail jsonb, subject text, source text, n int)
     on conflict (kind, at, actor_key_type, actor_key_id) where kind in ('policy-refused', 'rate-limited', 'quota-exceeded', 'key-wrong-network')
     do update set count = audit_events.count + excluded.count, detail = excluded.detail,
                   source_address = coalesce(excluded.source_address, audit_events.source_address)`,
    [
      JSON.stringify(
        counts.map((c) => ({
          kind: c.kind,
          minute: c.minute.toISOString(),
          key_type: c.actor.actorKeyType,
          key_id: c.actor.actorKeyId,
          key_name: c.actor.actorKeyName,
          user_id: c.actor.actorUserId,
          admin: c.actor.actorAdmin,
          detail: c.detail,
          subject: c.subject ?? null,
          source: c.sourceAddress ?? null,
          n: c.count,
        })),
      ),
    ],
  );
}

export interface AuditEventFilter {
  kind?: string;
  since?: Date;
  /** only events before this time */
  until?: Date;
  /** only events done to this subject (`zone:example.com`) */
  subject?: string;
  /** only events whose actor's e-mail or key name holds this (any letter case) */
  actor?: string;
}

/** the filter as conditions, the same for a page and its count */
function auditConditions(filter: AuditEventFilter): { where: string; values: unknown[] } {
  const values: unknown[] = [];
  const add = (value: unknown) => `$${values.push(value)}`;
  const conditions: string[] = [];
  if (filter.kind !== undefined) conditions.push(`kind = ${add(filter.kind)}`);
  if (filter.since !== undefined) conditions.push(`at >= ${add(filter.since.toISOString())}::timestamptz`);
  if (filter.until !== undefined) conditions.push(`at < ${add(filter.until.toISOString())}::timestamptz`);
  if (filter.subject !== undefined) conditions.push(`subject = ${add(filter.subject)}`);
  if (filter.actor !== undefined) {
    const actor = add(filter.actor.toLowerCase());
    conditions.push(
      `(strpos(lower(coalesce(actor_email, '')), ${actor}) > 0 or strpos(lower(coalesce(actor_key_name, '')), ${actor}) > 0)`,
    );
  }
  return { where: conditions.length ? conditions.join(' and ') : 'true', values };
}

/** newest first, keyset-paged by id (`after`, `before`: ids of rows of the list) */
export async function listAuditEvents(sql: Sql, filter: AuditEventFilter, page: PageRequest): Promise<AuditEventRow[]> {
  const { where, values } = auditConditions(filter);
  // the keyset's values follow the filter's in one list of parameters
  const p = new Params();
  p.values.push(...values);
  const paged = keyset(p, 'id', page, true);
  const rows = await sql.rows(
    `select ${COLUMNS} from audit_events where ${[where, ...paged.conditions].join(' and ')} ${paged.order} limit ${p.add(page.first)}`,
    p.values,
  );
  return rows.map(toRow);
}

export async function countAuditEvents(sql: Sql, filter: AuditEventFilter): Promise<number> {
  const { where, values } = auditConditions(filter);
  const [row] = await sql.rows<{ n: string }>(`select count(*) as n from audit_events where ${where}`, values);
  return Number(row.n);
}

/**
 * Marks the key's first use; true for the one call that found it unused (concurrent first uses in several
 * processes: the `first_used_at is null` condition lets one of them through).
 */
export async function markKeyFirstUsed(sql: Sql, keyType: 'api' | 'tsig', id: number): Promise<boolean> {
  const table = keyType === 'api' ? 'api_keys' : 'tsig_keys';
  return (await sql.affected(`update ${table} set first_used_at = now() where id = $1 and first_used_at is null`, [id])) > 0;
}

/**
 * Marks that the key's refusal for expiry or idleness is recorded; true for the one call that found it unmarked
 * (several processes refusing the same key at once: one of them records it). Changing the key's policy
 * clears the marks (updateKey in repositories/accounts.ts).
 */
export async function markKeyLimitAudited(sql: Sql, keyType: 'api' | 'tsig', id: number, limit: 'expired' | 'idle'): Promise<boolean> {
  const table = keyType === 'api' ? 'api_keys' : 'tsig_keys';
  const column = limit === 'expired' ? 'expiry_audited_at' : 'idle_audited_at';
  return (await sql.affected(`update ${table} set ${column} = now() where id = $1 and ${column} is null`, [id])) > 0;
}

/** the audit log's retention: rows older than `keepDays` (HISTORY_KEEP_DAYS, as the change history) */
export async function pruneAuditEvents(sql: Sql, keepDays: number): Promise<number> {
  return sql.affected(`delete from audit_events where at < now() - make_interval(days => $1)`, [keepDays]);
}
