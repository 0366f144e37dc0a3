import type { Sql } from '../db/pool';
import type { Role } from '../auth/roles';

/**
 * People, their memberships of accounts, invitations and sessions (docs/people.md): plain rows in, plain rows
 * out; the services (src/services/people.service.ts, sessions.service.ts) decide who may do what.
 */

export interface PersonRow {
  id: number;
  email: string;
  createdAt: Date;
}
export interface MembershipRow {
  personId: number;
  email: string;
  userId: number;
  accountEmail: string;
  role: Role;
  zones: string[] | null;
  createdAt: Date;
}
export interface InvitationRow {
  id: number;
  userId: number;
  email: string;
  role: Role;
  zones: string[] | null;
  expiresAt: Date;
  createdAt: Date;
  acceptedAt: Date | null;
}
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
}
/** how a person became an operator: by hand (the CLI, GraphQL) or by an OpenID Connect sign-in's claim */
export type OperatorGrant = 'hand' | 'oidc';
export interface OperatorRow {
  personId: number;
  email: string;
  /** null: no operator (any more) */
  grant: OperatorGrant | null;
  since: Date | null;
}

const date = (value: unknown) => new Date(value as string);
const toPerson = (r: any): PersonRow => ({ id: Number(r.id), email: r.email, createdAt: date(r.created_at) });
const toMembership = (r: any): MembershipRow => ({
  personId: Number(r.person_id),
  email: r.email,
  userId: Number(r.user_id),
  accountEmail: r.account_email,
  role: r.role,
  zones: r.zones ?? null,
  createdAt: date(r.created_at),
});
const INVITATION_COLUMNS = 'id, user_id, email, role, zones, expires_at, created_at, accepted_at';
const toInvitation = (r: any): InvitationRow => ({
  id: Number(r.id),
  userId: Number(r.user_id),
  email: r.email,
  role: r.role,
  zones: r.zones ?? null,
  expiresAt: date(r.expires_at),
  createdAt: date(r.created_at),
  acceptedAt: r.accepted_at === null ? null : date(r.accepted_at),
});
const SESSION_COLUMNS =
  's.id, s.person_id, p.email, s.account_id, s.created_at, s.last_seen_at, s.ended_at, s.source_address, s.user_agent, s.awaiting_second_factor, p.operator_grant';
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
});

// ---- people ----

/** the person of the e-mail address (compared without case), made on first sight */
export async function personByEmail(sql: Sql, email: string, create: boolean): Promise<PersonRow | undefined> {
  if (create) {
    await sql.rows(`insert into people (email) values ($1) on conflict (lower(email)) do nothing`, [email]);
  }
  const [row] = await sql.rows('select id, email, created_at from people where lower(email) = lower($1)', [email]);
  return row ? toPerson(row) : undefined;
}

/** has the person a way to sign in already: a passkey, or a session ever begun (an OIDC sign-in) */
export async function personHasSignedIn(sql: Sql, personId: number): Promise<boolean> {
  const [row] = await sql.rows(
    `select exists (select 1 from passkeys where person_id = $1) or exists (select 1 from sessions where person_id = $1) as signed_in`,
    [personId],
  );
  return row?.signed_in === true;
}

export async function personById(sql: Sql, id: number): Promise<PersonRow | undefined> {
  const [row] = await sql.rows('select id, email, created_at from people where id = $1', [id]);
  return row ? toPerson(row) : undefined;
}

// ---- operators ----

const OPERATOR_SELECT = 'select id as person_id, email, operator_grant, operator_since from people';
const toOperator = (r: any): OperatorRow => ({
  personId: Number(r.person_id),
  email: r.email,
  grant: r.operator_grant ?? null,
  since: r.operator_since === null ? null : date(r.operator_since),
});

/** the operator persons, in the order they became operators */
export async function operatorsList(sql: Sql): Promise<OperatorRow[]> {
  return (await sql.rows(`${OPERATOR_SELECT} where operator_grant is not null order by operator_since, id`)).map(toOperator);
}

/** the person's operator grant, its row locked (FOR UPDATE) until the caller's transaction ends; null: none */
export async function lockOperatorGrant(sql: Sql, personId: number): Promise<{ grant: OperatorGrant | null } | undefined> {
  const [row] = await sql.rows('select operator_grant from people where id = $1 for update', [personId]);
  return row ? { grant: row.operator_grant ?? null } : undefined;
}

/**
 * Sets the person's operator grant (null: none); `operator_since` is kept while the person stays an operator
 * (a grant by hand over one by OIDC), set when they become one, cleared when they stop. The row as it is after.
 */
export async function setOperatorGrant(sql: Sql, personId: number, grant: OperatorGrant | null): Promise<OperatorRow | undefined> {
  const [row] = await sql.rows(
    `update people set operator_grant = $2::text,
            operator_since = case when $2::text is null then null else coalesce(operator_since, now()) end
      where id = $1 returning id as person_id, email, operator_grant, operator_since`,
    [personId, grant],
  );
  return row ? toOperator(row) : undefined;
}

// ---- memberships ----

const MEMBERSHIP_SELECT = `select m.person_id, p.email, m.user_id, u.email as account_email, m.role, m.zones, m.created_at
  from memberships m join people p on p.id = m.person_id join users u on u.id = m.user_id`;

export async function membershipsOfPerson(sql: Sql, personId: number): Promise<MembershipRow[]> {
  return (await sql.rows(`${MEMBERSHIP_SELECT} where m.person_id = $1 order by m.user_id`, [personId])).map(toMembership);
}

export async function membersOfAccount(sql: Sql, userId: number): Promise<MembershipRow[]> {
  return (await sql.rows(`${MEMBERSHIP_SELECT} where m.user_id = $1 order by lower(p.email)`, [userId])).map(toMembership);
}

export async function membership(sql: Sql, personId: number, userId: number): Promise<MembershipRow | undefined> {
  const [row] = await sql.rows(`${MEMBERSHIP_SELECT} where m.person_id = $1 and m.user_id = $2`, [personId, userId]);
  return row ? toMembership(row) : undefined;
}

/** adds the person to the account, or sets the role of a member (an invitation accepted twice changes nothing else) */
export async function upsertMembership(sql: Sql, personId: number, userId: number, role: Role, zones: string[] | null): Promise<void> {
  await sql.rows(
    `insert into memberships (person_id, user_id, role, zones) values ($1, $2, $3, $4)
       on conflict (person_id, user_id) do update set role = excluded.role, zones = excluded.zones`,
    [personId, userId, role, zones],
  );
}

export async function deleteMembership(sql: Sql, personId: number, userId: number): Promise<boolean> {
  return (await sql.affected('delete from memberships where person_id = $1 and user_id = $2', [personId, userId])) > 0;
}

/**
 * Locks the account's owner memberships (FOR UPDATE) and counts them: two owners leaving at once see each
 * other's removal, so the last owner cannot leave by a race.
 */
export async function lockOwners(sql: Sql, userId: number): Promise<number[]> {
  const rows = await sql.rows(`select person_id from memberships where user_id = $1 and role = 'owner' order by person_id for update`, [
    userId,
  ]);
  return rows.map((r) => Number(r.person_id));
}

// ---- invitations ----

export async function insertInvitation(
  sql: Sql,
  invitation: { userId: number; email: string; role: Role; zones: string[] | null; tokenHash: string; expiresAt: Date },
): Promise<InvitationRow> {
  const [row] = await sql.rows(
    `insert into invitations (user_id, email, role, zones, token_hash, expires_at) values ($1, $2, $3, $4, $5, $6) returning ${INVITATION_COLUMNS}`,
    [invitation.userId, invitation.email, invitation.role, invitation.zones, invitation.tokenHash, invitation.expiresAt],
  );
  return toInvitation(row);
}

/** takes the invitation of the token once: marks it accepted (by `personId`) if it is open and unexpired */
export async function takeInvitation(sql: Sql, tokenHash: string, personId: number): Promise<InvitationRow | undefined> {
  const [row] = await sql.rows(
    `update invitations set accepted_at = now(), accepted_by = $2
      where token_hash = $1 and accepted_at is null and expires_at > now() returning ${INVITATION_COLUMNS}`,
    [tokenHash, personId],
  );
  return row ? toInvitation(row) : undefined;
}

/** the invitation of the token if it is open: not taken and not expired (nothing is written) */
export async function openInvitationByToken(sql: Sql, tokenHash: string): Promise<InvitationRow | undefined> {
  const [row] = await sql.rows(
    `select ${INVITATION_COLUMNS} from invitations where token_hash = $1 and accepted_at is null and expires_at > now()`,
    [tokenHash],
  );
  return row ? toInvitation(row) : undefined;
}

/** the invitation of a token that this person took already (by signing in: every sign-in takes them) */
export async function invitationTakenBy(sql: Sql, tokenHash: string, personId: number): Promise<InvitationRow | undefined> {
  const [row] = await sql.rows(`select ${INVITATION_COLUMNS} from invitations where token_hash = $1 and accepted_by = $2`, [
    tokenHash,
    personId,
  ]);
  return row ? toInvitation(row) : undefined;
}

/** the open invitations of an e-mail address (first sign-in of an invited address links the person) */
export async function openInvitationsOf(sql: Sql, email: string): Promise<InvitationRow[]> {
  const rows = await sql.rows(
    `select ${INVITATION_COLUMNS} from invitations where lower(email) = lower($1) and accepted_at is null and expires_at > now() order by id`,
    [email],
  );
  return rows.map(toInvitation);
}

export async function acceptInvitationById(sql: Sql, id: number, personId: number): Promise<boolean> {
  return (
    (await sql.affected(
      `update invitations set accepted_at = now(), accepted_by = $2 where id = $1 and accepted_at is null and expires_at > now()`,
      [id, personId],
    )) > 0
  );
}

export async function invitationsOfAccount(sql: Sql, userId: number): Promise<InvitationRow[]> {
  const rows = await sql.rows(`select ${INVITATION_COLUMNS} from invitations where user_id = $1 and accepted_at is null order by id`, [
    userId,
  ]);
  return rows.map(toInvitation);
}

export async function deleteInvitation(sql: Sql, id: number, userId: number | undefined): Promise<InvitationRow | undefined> {
  const [row] = await sql.rows(
    `delete from invitations where id = $1 and ($2::bigint is null or user_id = $2) and accepted_at is null returning ${INVITATION_COLUMNS}`,
    [id, userId ?? null],
  );
  return row ? toInvitation(row) : undefined;
}

// ---- recovery links ----

export interface RecoveryLinkRow {
  id: number;
  personId: number;
  /** the person's address */
  email: string;
  /** the account it was made in (the session it begins acts there) */
  userId: number;
  expiresAt: Date;
  createdAt: Date;
}
const RECOVERY_SELECT = `select r.id, r.person_id, p.email, r.user_id, r.expires_at, r.created_at from recovery_links r join people p on p.id = r.person_id`;
const toRecoveryLink = (r: any): RecoveryLinkRow => ({
  id: Number(r.id),
  personId: Number(r.person_id),
  email: r.email,
  userId: Number(r.user_id),
  expiresAt: date(r.expires_at),
  createdAt: date(r.created_at),
});

/** a person's new recovery link; the person's links not used yet are withdrawn (one good link at a time) */
export async function insertRecoveryLink(
  sql: Sql,
  link: { personId: number; userId: number; tokenHash: string; expiresAt: Date },
): Promise<RecoveryLinkRow> {
  await sql.rows(`delete from recovery_links where person_id = $1 and used_at is null`, [link.personId]);
  const [row] = await sql.rows(
    `with made as (insert into recovery_links (person_id, user_id, token_hash, expires_at) values ($1, $2, $3, $4) returning *)
     select r.id, r.person_id, p.email, r.user_id, r.expires_at, r.created_at from made r join people p on p.id = r.person_id`,
    [link.personId, link.userId, link.tokenHash, link.expiresAt],
  );
  return toRecoveryLink(row);
}

/** the recovery link of the token if it is good: not used, not expired, its person still a member of its account */
export async function openRecoveryLinkByToken(sql: Sql, tokenHash: string): Promise<RecoveryLinkRow | undefined> {
  const [row] = await sql.rows(
    `${RECOVERY_SELECT} where r.token_hash = $1 and r.used_at is null and r.expires_at > now()
       and exists (select 1 from memberships m where m.person_id = r.person_id and m.user_id = r.user_id)`,
    [tokenHash],
  );
  return row ? toRecoveryLink(row) : undefined;
}

/** takes the recovery link of the token once (as openRecoveryLinkByToken finds it): marks it used */
export async function takeRecoveryLink(sql: Sql, tokenHash: string): Promise<RecoveryLinkRow | undefined> {
  const [row] = await sql.rows(
    `with taken as (
       update recovery_links r set used_at = now()
        where r.token_hash = $1 and r.used_at is null and r.expires_at > now()
          and exists (select 1 from memberships m where m.person_id = r.person_id and m.user_id = r.user_id)
        returning *)
     select r.id, r.person_id, p.email, r.user_id, r.expires_at, r.created_at from taken r join people p on p.id = r.person_id`,
    [tokenHash],
  );
  return row ? toRecoveryLink(row) : undefined;
}

// ---- sessions ----

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

// ---- sign-in flows (OpenID Connect) ----

export interface SignInFlow {
  codeVerifier: string;
  state: string;
  nonce: string;
  redirectUri: string;
}

export async function insertSignInFlow(sql: Sql, idHash: string, flow: SignInFlow): Promise<void> {
  // flows older than an hour are dropped as new ones begin: an abandoned sign-in leaves nothing for long
  await sql.rows(`delete from sign_in_flows where created_at < now() - interval '1 hour'`);
  await sql.rows(`insert into sign_in_flows (id_hash, code_verifier, state, nonce, redirect_uri) values ($1, $2, $3, $4, $5)`, [
    idHash,
    flow.codeVerifier,
    flow.state,
    flow.nonce,
    flow.redirectUri,
  ]);
}

/** takes the flow once (deleted as it is read), if it began less than `maxSeconds` ago */
export async function takeSignInFlow(sql: Sql, idHash: string, maxSeconds: number): Promise<SignInFlow | undefined> {
  const [row] = await sql.rows(
    `delete from sign_in_flows where id_hash = $1 returning code_verifier, state, nonce, redirect_uri, created_at > now() - make_interval(secs => $2) as fresh`,
    [idHash, maxSeconds],
  );
  if (!row?.fresh) return undefined;
  return { codeVerifier: row.code_verifier, state: row.state, nonce: row.nonce, redirectUri: row.redirect_uri };
}

// ---- passkeys (WebAuthn) ----

export interface PasskeyRow {
  id: number;
  personId: number;
  email: string;
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[] | null;
  createdAt: Date;
}

const PASSKEY_SELECT = `select k.id, k.person_id, p.email, k.credential_id, k.public_key, k.counter, k.transports, k.created_at
  from passkeys k join people p on p.id = k.person_id`;
const toPasskey = (r: any): PasskeyRow => ({
  id: Number(r.id),
  personId: Number(r.person_id),
  email: r.email,
  credentialId: r.credential_id,
  publicKey: new Uint8Array(r.public_key as Buffer),
  counter: Number(r.counter),
  transports: r.transports ?? null,
  createdAt: date(r.created_at),
});

export async function insertPasskey(
  sql: Sql,
  passkey: { personId: number; credentialId: string; publicKey: Uint8Array; counter: number; transports: string[] | null },
): Promise<number> {
  const [row] = await sql.rows(
    `insert into passkeys (person_id, credential_id, public_key, counter, transports) values ($1, $2, $3, $4, $5) returning id`,
    [passkey.personId, passkey.credentialId, Buffer.from(passkey.publicKey), passkey.counter, passkey.transports],
  );
  return Number(row.id);
}

export async function passkeyByCredential(sql: Sql, credentialId: string): Promise<PasskeyRow | undefined> {
  const [row] = await sql.rows(`${PASSKEY_SELECT} where k.credential_id = $1`, [credentialId]);
  return row ? toPasskey(row) : undefined;
}

export async function passkeysOfPerson(sql: Sql, personId: number): Promise<PasskeyRow[]> {
  return (await sql.rows(`${PASSKEY_SELECT} where k.person_id = $1 order by k.id`, [personId])).map(toPasskey);
}

/** a person's passkeys as they list them: no key material, when each was added and last used */
export async function passkeyListOfPerson(
  sql: Sql,
  personId: number,
): Promise<{ id: number; createdAt: Date; lastUsedAt: Date | null; transports: string[] | null }[]> {
  const rows = await sql.rows(`select id, created_at, last_used_at, transports from passkeys where person_id = $1 order by id`, [personId]);
  return rows.map((r: any) => ({
    id: Number(r.id),
    createdAt: date(r.created_at),
    lastUsedAt: r.last_used_at ? date(r.last_used_at) : null,
    transports: r.transports ?? null,
  }));
}

/** removes one of a person's passkeys; false when the id is not one of theirs */
export async function deletePasskey(sql: Sql, personId: number, id: number): Promise<boolean> {
  return (await sql.affected(`delete from passkeys where id = $1 and person_id = $2`, [id, personId])) > 0;
}

/** the new signature counter, only forward (WebAuthn §6.1.1: a counter that does not grow may be a clone) */
export async function advancePasskeyCounter(sql: Sql, id: number, counter: number): Promise<boolean> {
  return (
    (await sql.affected(`update passkeys set counter = $2, last_used_at = now() where id = $1 and (counter < $2 or $2 = 0)`, [
      id,
      counter,
    ])) > 0
  );
}

export async function insertChallenge(sql: Sql, idHash: string, challenge: string, personId: number | null): Promise<void> {
  await sql.rows(`delete from webauthn_challenges where created_at < now() - interval '1 hour'`);
  await sql.rows(`insert into webauthn_challenges (id_hash, challenge, person_id) values ($1, $2, $3)`, [idHash, challenge, personId]);
}

/** takes a ceremony's challenge once, if it is younger than `maxSeconds` */
export async function takeChallenge(
  sql: Sql,
  idHash: string,
  maxSeconds: number,
): Promise<{ challenge: string; personId: number | null } | undefined> {
  const [row] = await sql.rows(
    `delete from webauthn_challenges where id_hash = $1 returning challenge, person_id, created_at > now() - make_interval(secs => $2) as fresh`,
    [idHash, maxSeconds],
  );
  if (!row?.fresh) return undefined;
  return { challenge: row.challenge, personId: row.person_id === null ? null : Number(row.person_id) };
}

/** the second factor was presented: the session is whole from now on */
export async function passSecondFactor(sql: Sql, id: number): Promise<boolean> {
  return (await sql.affected(`update sessions set awaiting_second_factor = false where id = $1 and ended_at is null`, [id])) > 0;
}
