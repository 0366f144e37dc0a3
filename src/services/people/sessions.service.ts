import type { Settings } from '../../config/settings';
import type { Database, Sql } from '../../db/pool';
import { personPrincipal, type Principal } from '../../auth/principal';
import { rolePolicy, type Role } from '../../auth/roles';
import { DomainError } from '../../errors/catalogue';
import {
  endSessions,
  endTimedOutSession,
  endTimedOutSessions,
  insertSession,
  liveSessionByHash,
  membership,
  membershipsOfPerson,
  noteSessionWrite,
  passkeysOfPerson,
  personByEmail,
  PersonRow,
  SessionRow,
  SessionTimeout,
  sessionsOfPerson,
  setSessionAccount,
} from '../../repositories/people';
import type { RequestContext } from '../context';
import { inTransaction } from '../db-errors';
import { recordAuditEvent } from '../audit-log';
import { hashToken, newToken, PeopleService, personOf } from './people.service';
import { operatorAtSignIn } from './operators.service';

export type { SessionRow } from '../../repositories/people';

/** a session as the actor of what happened to it by itself or before it was whole (a timeout, a sign-out or a second factor awaited) */
export const sessionActor = (session: Pick<SessionRow, 'id' | 'email' | 'accountId' | 'personId'>): Principal =>
  personPrincipal({ id: session.personId, email: session.email }, { sessionId: session.id, accountId: session.accountId });

/** a session ended by its timeout, in the audit log: the session itself is the actor, as a key refused for its expiry is of its key-expired */
function auditTimedOut(sql: Sql, ended: SessionRow & { reason: SessionTimeout }, sourceAddress?: string): Promise<void> {
  return recordAuditEvent(sql, {
    kind: 'session-ended',
    actor: sessionActor(ended),
    subject: `session:${ended.id}`,
    detail: { reason: ended.reason },
    sourceAddress,
  });
}

/** sessions the worker's sweep ends at once: a batch, then the next, until none is left */
const SWEEP_BATCH = 500;

/**
 * The worker's sweep (every few minutes): every session that timed out and was not presented since is ended and
 * audited now (`session-ended`, detail `reason`), its `ended_at` the moment it timed out, as one presented would
 * be (`SessionsService.live`). Returns how many it ended.
 */
export async function endTimedOutSessionsNow(db: Database, limits: { idleSeconds: number; absoluteSeconds: number }): Promise<number> {
  let total = 0;
  for (;;) {
    const ended = await inTransaction(db, async (sql) => {
      const rows = await endTimedOutSessions(sql, limits.idleSeconds, limits.absoluteSeconds, SWEEP_BATCH);
      for (const row of rows) await auditTimedOut(sql, row);
      return rows.length;
    });
    total += ended;
    if (ended < SWEEP_BATCH) return total;
  }
}

/** the session cookie's name (HttpOnly, SameSite=Lax; Secure behind TLS): docs/people.md */
export const SESSION_COOKIE = 'zk_session';

/** how a person proved who they are, for the audit log */
export type SignInMethod = 'oidc' | 'passkey';

/**
 * People's sessions (docs/people.md): rows in PostgreSQL (every process reads the same ones), the token a
 * cookie carries stored as its SHA-256 only, ended by sign-out, by sign-out everywhere, or by the idle and
 * absolute timeouts (SESSION_IDLE_TIMEOUT, SESSION_ABSOLUTE_TIMEOUT). Each request's principal is made from
 * the person's membership as it is now: a role changed or a member removed counts at the next request.
 */
export class SessionsService {
  constructor(
    private readonly settings: Settings,
    private readonly people: PeopleService,
  ) {}

  /**
   * A person proven by a sign-in method (an e-mail address the identity provider verified, or a passkey's
   * owner): the person is made on first sight, and a session begins (in the first account of the person).
   * Only a proven address takes up the address's open invitations (`linkInvitations`): an OIDC sign-in, once
   * its second factor is passed where one is awaited (PasskeysService.secondFactor). A passkey proves its
   * owner, not the address: a person made from one invitation link (the link's holder) takes the others only
   * by their own tokens (`acceptInvitation`). `operator`: what an OIDC sign-in's claim says of the person being
   * an operator (docs/people.md, «The operator»), stored before the session begins. Returns the cookie's token, once.
   */
  async start(
    db: Database,
    email: string,
    how: { method: SignInMethod; sourceAddress?: string; userAgent?: string; operator?: { claim: string; granted: boolean } },
  ): Promise<{ token: string; sessionId: number }> {
    return inTransaction(db, async (sql) => {
      const person = (await personByEmail(sql, email, true))!;
      // an OIDC sign-in under OIDC_OPERATOR_CLAIM: the claim grants or takes back an operator grant of its own
      if (how.operator) await operatorAtSignIn(sql, person, how.operator.granted, how.operator.claim);
      const actor = personPrincipal(person);
      // a person who has a passkey proves it too after an OIDC sign-in (a second factor): until then the
      // session allows nothing but presenting it (PasskeysService.secondFactor)
      const awaitingSecondFactor = how.method === 'oidc' && (await passkeysOfPerson(sql, person.id)).length > 0;
      if (how.method === 'oidc' && !awaitingSecondFactor) await this.people.linkInvitations(sql, person, actor);
      const [first] = await membershipsOfPerson(sql, person.id);
      return this.beginIn(sql, person, { accountId: first?.userId ?? null, role: null }, how, {
        awaitingSecondFactor,
        detail: awaitingSecondFactor ? { method: how.method, secondFactor: 'awaited' } : { method: how.method },
      });
    });
  }

  /**
   * In the caller's transaction: a session of `person` in `account`, audited `signed-in` with `detail`. Returns
   * the cookie's token, once. `start` begins one after a sign-in; a first passkey from an invitation begins one
   * in the transaction that makes the person (PasskeysService.registerFromLink).
   */
  async beginIn(
    sql: Sql,
    person: PersonRow,
    account: { accountId: number | null; role: Role | null },
    how: { sourceAddress?: string; userAgent?: string },
    options: { awaitingSecondFactor?: boolean; detail: Record<string, unknown> },
  ): Promise<{ token: string; sessionId: number }> {
    const { token, hash } = newToken('zk_session');
    const sessionId = await insertSession(sql, {
      personId: person.id,
      tokenHash: hash,
      accountId: account.accountId,
      sourceAddress: how.sourceAddress,
      userAgent: how.userAgent?.slice(0, 300),
      awaitingSecondFactor: options.awaitingSecondFactor ?? false,
    });
    await recordAuditEvent(sql, {
      kind: 'signed-in',
      actor: personPrincipal(person, { sessionId, accountId: account.accountId, role: account.role }),
      subject: `session:${sessionId}`,
      detail: options.detail,
      sourceAddress: how.sourceAddress,
    });
    return { token, sessionId };
  }

  /**
   * In the caller's transaction: an OIDC session's second factor passed, so its address is proven as a sign-in
   * without one proves it (`start`): the address's open invitations become memberships, and a session that had
   * no account acts in the first one it now has.
   */
  async secondFactorPassedIn(sql: Sql, session: SessionRow): Promise<void> {
    await this.people.linkInvitations(sql, { id: session.personId, email: session.email }, sessionActor(session));
    if (session.accountId !== null) return;
    const [first] = await membershipsOfPerson(sql, session.personId);
    if (first) await setSessionAccount(sql, session.id, first.userId);
  }

  /** whether the person of this address (if any yet) has a passkey, which an OIDC sign-in then asks as a second factor */
  async hasSecondFactor(db: Database, email: string): Promise<boolean> {
    const person = await personByEmail(db, email, false);
    return person !== undefined && (await passkeysOfPerson(db, person.id)).length > 0;
  }

  /** a sign-in refused (a wrong state or nonce, an unverified address, …): recorded, nothing else */
  async refused(db: Database, method: SignInMethod, reason: string, sourceAddress?: string): Promise<void> {
    await recordAuditEvent(db, { kind: 'sign-in-failed', detail: { method, reason }, sourceAddress });
  }

  /**
   * The principal of a session cookie's token, or null: no such live session. A session found timed out
   * (idle or absolute) is ended and audited here, once (`sourceAddress`: who presented it).
   */
  async authenticate(
    db: Database,
    token: string | undefined,
    sourceAddress?: string,
    activity: 'request' | 'check' = 'request',
  ): Promise<Principal | null> {
    const session = await this.live(db, token, sourceAddress, activity);
    if (!session || session.awaitingSecondFactor) return null;
    return this.principalOf(db, session);
  }

  /** the live session of a token that waits for its second factor, or undefined */
  async awaitingSecondFactor(db: Database, token: string | undefined, sourceAddress?: string): Promise<SessionRow | undefined> {
    const session = await this.live(db, token, sourceAddress);
    return session?.awaitingSecondFactor ? session : undefined;
  }

  /**
   * The live session of a token. Not live: if it timed out and was not marked ended yet, it is now, with a
   * `session-ended` event (detail `reason`: `idle-timeout` or `absolute-timeout`). The one UPDATE that marks it
   * decides who writes the event (endTimedOutSession), so two requests presenting it at once, in one process
   * or in several, record it once; a token presented again after that finds nothing to end.
   */
  private async live(
    db: Database,
    token: string | undefined,
    sourceAddress?: string,
    activity: 'request' | 'check' = 'request',
  ): Promise<SessionRow | undefined> {
    if (!token) return undefined;
    const { idleSeconds, absoluteSeconds } = this.settings.sessions;
    const hash = hashToken(token);
    // a check the service makes by itself (an open WebSocket's, every few seconds) is no activity of the person's:
    // it does not keep the session from going idle
    const session = await liveSessionByHash(db, hash, idleSeconds, absoluteSeconds, activity === 'request');
    if (session) return session;
    await inTransaction(db, async (sql) => {
      const ended = await endTimedOutSession(sql, hash, idleSeconds, absoluteSeconds);
      if (ended) await auditTimedOut(sql, ended, sourceAddress);
    });
    return undefined;
  }

  private async principalOf(db: Database, session: SessionRow): Promise<Principal> {
    const member = session.accountId === null ? undefined : await membership(db, session.personId, session.accountId);
    const role = member?.role ?? null;
    // an operator person acts with the admin key's rights (personPrincipal); the role stays what `me` tells
    return personPrincipal(
      { id: session.personId, email: session.email },
      {
        sessionId: session.id,
        accountId: member?.userId,
        role,
        policy: rolePolicy(role, member?.zones ?? null),
        operator: session.operator,
        consistencyToken: session.consistencyToken,
      },
    );
  }

  /** the person's live sessions (one that timed out is not listed, though not marked ended until presented) */
  list(ctx: RequestContext): Promise<SessionRow[]> {
    const { idleSeconds, absoluteSeconds } = this.settings.sessions;
    return sessionsOfPerson(ctx.db, personOf(ctx.principal).id, idleSeconds, absoluteSeconds);
  }

  /** ends one of the person's sessions (`id`), or all of them (sign-out everywhere); the ids ended */
  async end(ctx: RequestContext, id?: number): Promise<number[]> {
    const person = personOf(ctx.principal);
    return inTransaction(ctx.db, async (sql) => {
      const ended = await endSessions(sql, person.id, this.settings.sessions, id);
      if (id !== undefined && !ended.length)
        throw new DomainError('SESSION_NOT_FOUND', undefined, [
          { field: 'id', code: 'SESSION_NOT_FOUND', message: 'no live session of yours with that id' },
        ]);
      for (const sessionId of ended)
        await recordAuditEvent(sql, {
          kind: 'session-ended',
          actor: ctx.principal,
          subject: `session:${sessionId}`,
          detail: { everywhere: id === undefined },
        });
      return ended;
    });
  }

  /**
   * Sign-out of a session that still waits for its second factor (`authenticate` gives it no principal, so
   * `end` cannot be asked): it ends all the same, audited with the session as its actor.
   */
  async endAwaitingSecondFactor(db: Database, token: string | undefined, sourceAddress?: string): Promise<void> {
    const session = await this.awaitingSecondFactor(db, token, sourceAddress);
    if (!session) return;
    await inTransaction(db, async (sql) => {
      for (const sessionId of await endSessions(sql, session.personId, this.settings.sessions, session.id))
        await recordAuditEvent(sql, {
          kind: 'session-ended',
          actor: sessionActor(session),
          subject: `session:${sessionId}`,
          detail: { everywhere: false, secondFactor: 'awaited' },
          sourceAddress,
        });
    });
  }

  /**
   * After a write made with the session (`sessionId`, on the primary `db`): its Consistency-Token, kept on the
   * session (docs/deployment.md, «Reading from standbys»), so that the person's reads in any process and any tab
   * wait for a standby to have it. One UPDATE a write; a read only reads it with the session it authenticates.
   */
  noteWrite(db: Database, sessionId: number): Promise<string> {
    return noteSessionWrite(db, sessionId);
  }

  /** the account the session acts in from now on (one the person is a member of) */
  async switchAccount(ctx: RequestContext, userId: number): Promise<void> {
    const person = personOf(ctx.principal);
    if (!(await membership(ctx.db, person.id, userId))) throw DomainError.notFound('USER_NOT_FOUND', 'userId');
    await setSessionAccount(ctx.db, ctx.principal.keyId, userId);
  }
}
