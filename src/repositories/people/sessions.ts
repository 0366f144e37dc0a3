/** Sessions: begun at a sign-in, seen by each request, ended by a sign-out or a timeout (idle or absolute) */
import type { Sql } from '../../db/pool';
import { date } from './dates';

export interface SessionRow {
  id: number;
  personId: number;
  email: string;
  accountId: number | null;
  createdAt: Date;
  lastSeenAt: Date;
  endedAt: Date | null;
  sourceAddress: string | null;
  userAgent: string | null;
  /** signed in with OIDC by a person who has a passkey: nothing is allowed until the passkey is presented */
  awaitingSecondFactor: boolean;
  /** the person is an operator (docs/people.md, «The operator»), as the person's row says now */
  operator: boolean;
  /** the Consistency-Token of the latest write made with the session (a WAL position); null before its first */
  consistencyToken: string | null;
}

const SESSION_COLUMNS =
  's.id, s.person_id, p.email, s.account_id, s.created_at, s.last_seen_at, s.ended_at, s.source_address, s.user_agent, s.awaiting_second_factor, p.operator_grant, s.consistency_token::text as consistency_token';
const toSession = (r: any): SessionRow => ({
  id: Number(r.id),
  personId: Number(r.person_id),
  email: r.email,
  accountId: r.account_id === null ? null : Number(r.account_id),
  createdAt: date(r.created_at),
  lastSeenAt: date(r.last_seen_at),
  endedAt: r.ended_at === null ? null : date(r.ended_at),
  sourceAddress: r.source_address,
  userAgent: r.user_agent,
  awaitingSecondFactor: r.awaiting_second_factor === true,
  operator: r.operator_grant !== null && r.operator_grant !== undefined,
  consistencyToken: r.consistency_token ?? null,
});

export async function insertSession(
  sql: Sql,
  session: {
    personId: number;
    tokenHash: string;
    accountId: number | null;
    sourceAddress?: string;
    userAgent?: string;
    awaitingSecondFactor?: boolean;
  },
): Promise<number> {
  const [row] = await sql.rows(
    `insert into sessions (person_id, token_hash, account_id, source_address, user_agent, awaiting_second_factor) values ($1, $2, $3, $4, $5, $6) returning id`,
    [
      session.personId,
      session.tokenHash,
      session.accountId,
      session.sourceAddress ?? null,
      session.userAgent ?? null,
      session.awaitingSecondFactor ?? false,
    ],
  );
  return Number(row.id);
}

/**
 * The live session of a token: not ended, seen within `idleSeconds` and begun within `absoluteSeconds`; with
 * `seen` (a person's request), its `last_seen_at` moves to now, at most once a minute (a busy session costs one
 * UPDATE a minute) or a quarter of the idle timeout when that is shorter, so that activity always keeps a
 * session alive, and its idle timeout counts from a request at most that much older than the last.
 */
export async function liveSessionByHash(
  sql: Sql,
  tokenHash: string,
  idleSeconds: number,
  absoluteSeconds: number,
  seen = true,
): Promise<SessionRow | undefined> {
  const [row] = await sql.rows(
    `with live as (
       select s.id from sessions s
        where s.token_hash = $1 and s.ended_at is null
          and s.last_seen_at > now() - make_interval(secs => $2) and s.created_at > now() - make_interval(secs => $3)),
     seen as (update sessions set last_seen_at = now() where $4 and id = (select id from live) and last_seen_at < now() - make_interval(secs => least(60, $2::float8 / 4)))
     select ${SESSION_COLUMNS} from sessions s join people p on p.id = s.person_id where s.id = (select id from live)`,
    [tokenHash, idleSeconds, absoluteSeconds, seen],
  );
  return row ? toSession(row) : undefined;
}

/** why a session ended by itself: no request for SESSION_IDLE_TIMEOUT, or SESSION_ABSOLUTE_TIMEOUT since the sign-in */
export type SessionTimeout = 'idle-timeout' | 'absolute-timeout';

/**
 * Ends the session of a token that timed out (idle or absolute) and is not marked ended yet, and returns it
 * with the timeout that ended it first; undefined when there is none (no such token, ended already, still
 * live). One UPDATE decides: of two requests presenting the same expired token at once, the second waits on
 * the row's lock, finds `ended_at` set and gets nothing, so the end is recorded once. `ended_at` is the
 * moment the session timed out, not the moment it was found so.
 */
export async function endTimedOutSession(
  sql: Sql,
  tokenHash: string,
  idleSeconds: number,
  absoluteSeconds: number,
): Promise<(SessionRow & { reason: SessionTimeout }) | undefined> {
  const [row] = await sql.rows(
    `with ended as (
       update sessions s
          set ended_at = least(s.last_seen_at + make_interval(secs => $2), s.created_at + make_interval(secs => $3))
        where s.token_hash = $1 and s.ended_at is null
          and (s.last_seen_at <= now() - make_interval(secs => $2) or s.created_at <= now() - make_interval(secs => $3))
        returning s.*,
          case when s.last_seen_at + make_interval(secs => $2) < s.created_at + make_interval(secs => $3)
               then 'idle-timeout' else 'absolute-timeout' end as reason)
     select ${SESSION_COLUMNS}, s.reason from ended s join people p on p.id = s.person_id`,
    [tokenHash, idleSeconds, absoluteSeconds],
  );
  return row ? { ...toSession(row), reason: row.reason as SessionTimeout } : undefined;
}

/**
 * Ends up to `limit` sessions that timed out (idle or absolute) and are not marked ended yet, whoever presents
 * them or not, and returns each with the timeout that ended it first: the worker's sweep, so that a session
 * never presented again is ended and audited too. The same UPDATE as endTimedOutSession, so a session is
 * ended once whichever comes first; `skip locked` leaves one being ended by a request to that request.
 */
export async function endTimedOutSessions(
  sql: Sql,
  idleSeconds: number,
  absoluteSeconds: number,
  limit: number,
): Promise<(SessionRow & { reason: SessionTimeout })[]> {
  const rows = await sql.rows(
    `with due as (
       select id from sessions
        where ended_at is null
          and (last_seen_at <= now() - make_interval(secs => $1) or created_at <= now() - make_interval(secs => $2))
        limit $3 for update skip locked),
     ended as (
       update sessions s
          set ended_at = least(s.last_seen_at + make_interval(secs => $1), s.created_at + make_interval(secs => $2))
        where s.id in (select id from due)
        returning s.*,
          case when s.last_seen_at + make_interval(secs => $1) < s.created_at + make_interval(secs => $2)
               then 'idle-timeout' else 'absolute-timeout' end as reason)
     select ${SESSION_COLUMNS}, s.reason from ended s join people p on p.id = s.person_id order by s.id`,
    [idleSeconds, absoluteSeconds, limit],
  );
  return rows.map((row) => ({ ...toSession(row), reason: row.reason as SessionTimeout }));
}

/** the person's live sessions: not ended, and not timed out either (a session is marked ended only when presented) */
export async function sessionsOfPerson(sql: Sql, personId: number, idleSeconds: number, absoluteSeconds: number): Promise<SessionRow[]> {
  const rows = await sql.rows(
    `select ${SESSION_COLUMNS} from sessions s join people p on p.id = s.person_id
      where s.person_id = $1 and s.ended_at is null
        and s.last_seen_at > now() - make_interval(secs => $2) and s.created_at > now() - make_interval(secs => $3)
      order by s.id`,
    [personId, idleSeconds, absoluteSeconds],
  );
  return rows.map(toSession);
}

/**
 * Ends the person's live sessions (all, or the one `id`); the ids ended. One that timed out already is left to
 * endTimedOutSession (its end was the timeout, not this sign-out).
 */
export async function endSessions(
  sql: Sql,
  personId: number,
  limits: { idleSeconds: number; absoluteSeconds: number },
  id?: number,
): Promise<number[]> {
  const rows = await sql.rows(
    `update sessions set ended_at = now()
      where person_id = $1 and ($2::bigint is null or id = $2) and ended_at is null
        and last_seen_at > now() - make_interval(secs => $3) and created_at > now() - make_interval(secs => $4)
      returning id`,
    [personId, id ?? null, limits.idleSeconds, limits.absoluteSeconds],
  );
  return rows.map((r) => Number(r.id));
}

export async function setSessionAccount(sql: Sql, id: number, accountId: number): Promise<void> {
  await sql.rows('update sessions set account_id = $2 where id = $1', [id, accountId]);
}

/** the second factor was presented: the session is whole from now on */
export async function passSecondFactor(sql: Sql, id: number): Promise<boolean> {
  return (await sql.affected(`update sessions set awaiting_second_factor = false where id = $1 and ended_at is null`, [id])) > 0;
}

/**
 * After a write made with the session: the primary's WAL position now (the write's Consistency-Token), kept on
 * the session when it is later than the one there (`greatest`: of two writes of one session answered out of
 * order, the later position stays; the second UPDATE reads the first's row). One the primary has not reached is
 * from another history (a database restored, or a standby promoted before it had the old primary's last WAL)
 * and is replaced. Returns the token to answer with: the session's, which is this write's position or a later
 * one; the position alone when the session is gone.
 */
export async function noteSessionWrite(sql: Sql, id: number): Promise<string> {
  const [row] = await sql.rows(
    `with noted as (
       update sessions set consistency_token = greatest(case when consistency_token <= pg_current_wal_lsn() then consistency_token end, pg_current_wal_lsn())
        where id = $1 returning consistency_token)
     select coalesce((select consistency_token from noted), pg_current_wal_lsn())::text as token`,
    [id],
  );
  return row.token as string;
}
