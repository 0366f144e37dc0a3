import type { Sql } from '../db/pool';

/**
 * Change requests and their reviews (docs/changes.md, «Review», «Scheduled changes»): the SQL of
 * services/zones/change-requests.service.ts. A request's status moves only forward, each step a conditional
 * update on the status it leaves, so that two processes (two approvals at once, the duty and a cancel) never both
 * take the same step.
 */

export type ChangeRequestStatus = 'pending' | 'approved' | 'applied' | 'rejected' | 'refused' | 'cancelled';

/** who proposed a request: what the history names as its author, and what the apply acts with */
export interface ChangeRequestAuthor {
  keyId: number | null;
  tsigKeyId: number | null;
  keyName: string | null;
  userId: number | null;
  personId: number | null;
  email: string | null;
  admin: boolean;
  /** the rules of the author's key or role, as they were when proposed (null: unrestricted) */
  policy: unknown;
}

export interface ChangeRequestRow {
  id: number;
  domainId: number;
  zone: string;
  /** the zone's account */
  userId: number;
  author: ChangeRequestAuthor;
  changes: unknown[];
  plannedSerial: number;
  plan: unknown;
  requiredApprovals: number;
  status: ChangeRequestStatus;
  scheduledAt: Date | null;
  createdAt: Date;
  closedAt: Date | null;
  appliedSerial: number | null;
  conflicts: { owner: string; type: string }[] | null;
  reason: string | null;
}

export interface ChangeReviewRow {
  id: number;
  requestId: number;
  personId: number;
  reviewer: string;
  verdict: 'approve' | 'reject';
  comment: string | null;
  createdAt: Date;
}

const COLUMNS = `c.id, c.domain_id, c.zone, d.user_id, c.author_key_id, c.author_tsig_key_id, c.author_key_name, c.author_user_id,
  c.author_person_id, c.author_email, c.author_admin, c.author_policy, c.changes, c.planned_serial, c.plan, c.required_approvals,
  c.status, c.scheduled_at, c.created_at, c.closed_at, c.applied_serial, c.conflicts, c.reason`;
const FROM = 'change_requests c join domains d on d.id = c.domain_id';

const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

function toRow(row: any): ChangeRequestRow {
  return {
    id: Number(row.id),
    domainId: Number(row.domain_id),
    zone: row.zone,
    userId: Number(row.user_id),
    author: {
      keyId: num(row.author_key_id),
      tsigKeyId: num(row.author_tsig_key_id),
      keyName: row.author_key_name,
      userId: num(row.author_user_id),
      personId: num(row.author_person_id),
      email: row.author_email,
      admin: row.author_admin === true,
      policy: row.author_policy,
    },
    changes: row.changes,
    plannedSerial: Number(row.planned_serial),
    plan: row.plan,
    requiredApprovals: Number(row.required_approvals),
    status: row.status,
    scheduledAt: row.scheduled_at,
    createdAt: row.created_at,
    closedAt: row.closed_at,
    appliedSerial: num(row.applied_serial),
    conflicts: row.conflicts,
    reason: row.reason,
  };
}

export async function insertChangeRequest(
  sql: Sql,
  request: {
    domainId: number;
    zone: string;
    author: ChangeRequestAuthor;
    changes: unknown[];
    plannedSerial: number;
    plan: unknown;
    requiredApprovals: number;
    status: 'pending' | 'approved';
    scheduledAt: Date | null;
  },
): Promise<number> {
  const a = request.author;
  const [row] = await sql.rows(
    `insert into change_requests (domain_id, zone, author_key_id, author_tsig_key_id, author_key_name, author_user_id, author_person_id,
       author_email, author_admin, author_policy, changes, planned_serial, plan, required_approvals, status, scheduled_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12, $13::jsonb, $14, $15, $16) returning id`,
    [
      request.domainId,
      request.zone,
      a.keyId,
      a.tsigKeyId,
      a.keyName,
      a.userId,
      a.personId,
      a.email,
      a.admin,
      a.policy === null || a.policy === undefined ? null : JSON.stringify(a.policy),
      JSON.stringify(request.changes),
      request.plannedSerial,
      JSON.stringify(request.plan),
      request.requiredApprovals,
      request.status,
      request.scheduledAt,
    ],
  );
  return Number(row.id);
}

/** one request; `forUpdate`: its row locked for the caller's transaction */
export async function changeRequestById(sql: Sql, id: number, forUpdate = false): Promise<ChangeRequestRow | undefined> {
  const [row] = await sql.rows(`select ${COLUMNS} from ${FROM} where c.id = $1${forUpdate ? ' for update of c' : ''}`, [id]);
  return row ? toRow(row) : undefined;
}

/** a zone's requests, newest first; `statuses`: only those */
export async function changeRequestsOfZone(
  sql: Sql,
  domainId: number,
  options: { statuses?: readonly ChangeRequestStatus[]; first: number },
): Promise<ChangeRequestRow[]> {
  const rows = await sql.rows(
    `select ${COLUMNS} from ${FROM} where c.domain_id = $1 and ($2::text[] is null or c.status = any($2::text[])) order by c.id desc limit $3`,
    [domainId, options.statuses ? [...options.statuses] : null, options.first],
  );
  return rows.map(toRow);
}

export async function reviewsOf(sql: Sql, requestIds: readonly number[]): Promise<ChangeReviewRow[]> {
  if (!requestIds.length) return [];
  const rows = await sql.rows(
    `select id, request_id, person_id, reviewer, verdict, comment, created_at from change_request_reviews
      where request_id = any($1::bigint[]) order by id`,
    [[...requestIds]],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    requestId: Number(row.request_id),
    personId: Number(row.person_id),
    reviewer: row.reviewer,
    verdict: row.verdict,
    comment: row.comment,
    createdAt: row.created_at,
  }));
}

/** a review; false: this person reviewed the request already */
export async function insertReview(
  sql: Sql,
  review: { requestId: number; personId: number; reviewer: string; verdict: 'approve' | 'reject'; comment: string | null },
): Promise<boolean> {
  const inserted = await sql.affected(
    `insert into change_request_reviews (request_id, person_id, reviewer, verdict, comment) values ($1, $2, $3, $4, $5)
     on conflict (request_id, person_id) do nothing`,
    [review.requestId, review.personId, review.reviewer, review.verdict, review.comment],
  );
  return inserted === 1;
}

/**
 * Moves a request from one of `from` to `to` (closed when `to` ends it); false: it was not in `from` (another
 * process took the step). `claimSeconds`: the process that moves it to `approved` applies it now, and holds it
 * that long (the duty takes it up after, if that process died).
 */
export async function moveChangeRequest(
  sql: Sql,
  id: number,
  from: readonly ChangeRequestStatus[],
  to: ChangeRequestStatus,
  more: { appliedSerial?: number; conflicts?: { owner: string; type: string }[]; reason?: string; claimSeconds?: number } = {},
): Promise<boolean> {
  const closes = to !== 'pending' && to !== 'approved';
  const moved = await sql.affected(
    `update change_requests set status = $3, closed_at = case when $4 then now() else closed_at end,
        applied_serial = coalesce($5, applied_serial), conflicts = coalesce($6::jsonb, conflicts), reason = coalesce($7, reason),
        claimed_until = case when $8::int is null then null else now() + make_interval(secs => $8::int) end
      where id = $1 and status = any($2::text[])
        and ($3 <> 'cancelled' or claimed_until is null or claimed_until < now())`,
    [
      id,
      [...from],
      to,
      closes,
      more.appliedSerial ?? null,
      more.conflicts ? JSON.stringify(more.conflicts) : null,
      more.reason ?? null,
      more.claimSeconds ?? null,
    ],
  );
  return moved === 1;
}

/**
 * Claims the approved requests whose time has come (or that have none: an approval whose apply did not end), at
 * most `limit`, for `claimSeconds`: `FOR UPDATE SKIP LOCKED` so that processes claiming at once each take others,
 * and the lease so that a request being applied is not taken again until it ends or its process is gone.
 */
export async function claimDueChangeRequests(
  sql: Sql,
  limit: number,
  claimSeconds: number,
): Promise<{ id: number; domainId: number; rrsets: string[] }[]> {
  const rows = await sql.rows(
    `update change_requests set claimed_until = now() + make_interval(secs => $2::int)
      where id in (select id from change_requests
                    where status = 'approved' and (scheduled_at is null or scheduled_at <= now())
                      and (claimed_until is null or claimed_until < now())
                    order by scheduled_at nulls first, id limit $1 for update skip locked)
      returning id, domain_id, scheduled_at,
        (select coalesce(jsonb_agg((b->>'owner') || ' ' || (b->>'type')), '[]'::jsonb)
           from jsonb_array_elements(coalesce(plan->'basis', '[]'::jsonb)) b) as rrsets`,
    [limit, claimSeconds],
  );
  // in the order they were due (an UPDATE returns its rows in no set order)
  return rows
    .map((row) => ({
      id: Number(row.id),
      domainId: Number(row.domain_id),
      at: row.scheduled_at?.getTime() ?? 0,
      rrsets: row.rrsets as string[],
    }))
    .sort((a, b) => a.at - b.at || a.id - b.id)
    .map(({ at: _at, ...claimed }) => claimed);
}

/** the zone's required approvals and account (undefined: no such zone) */
export async function zoneReview(sql: Sql, domainId: number): Promise<{ requiredApprovals: number } | undefined> {
  const [row] = await sql.rows('select required_approvals from domains where id = $1', [domainId]);
  return row ? { requiredApprovals: Number(row.required_approvals) } : undefined;
}

/**
 * The zone's serial and the served records of the RRsets given, read in one statement (one snapshot): what a
 * request's apply compares with the RRsets it was planned on, before it applies at that serial.
 */
export async function servedRrsets(
  sql: Sql,
  domainId: number,
  rrsets: readonly { owner: string; type: string }[],
): Promise<{ serial: number; records: { owner: string; type: string; rdata: string; ttl: number }[] } | undefined> {
  const [row] = await sql.rows(
    `select d.serial,
        (select coalesce(json_agg(json_build_object('owner', r.owner, 'type', r.type, 'rdata', r.rdata, 'ttl', r.ttl)), '[]'::json)
           from json_to_recordset($2::json) as k(owner text, type text)
           join records r on r.domain_id = d.id and r.owner = k.owner and r.type = k.type) as records
       from domains d where d.id = $1`,
    [domainId, JSON.stringify(rrsets.map(({ owner, type }) => ({ owner, type })))],
  );
  return row ? { serial: Number(row.serial), records: row.records } : undefined;
}
