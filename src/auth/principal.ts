import { DomainError } from '../errors/catalogue';
import type { KeyPolicy } from './policy';
import { managesWebhooks, type Role } from './roles';

/**
 * Who is calling: the admin key sees everything; a user key sees only that user's zones and records. `keyId`
 * is an API key's id, or with `via: 'tsig'` a TSIG key's (a DNS UPDATE, RFC 2136), so history names either.
 * A session of an operator person (docs/people.md, «The operator») is of kind `admin` too, with `via: 'session'`
 * and its `person`: it acts with the admin key's rights, decided here once (personPrincipal), so that every
 * service and edge that asks what the admin may do answers the operator person alike.
 */
export type Principal =
  | { kind: 'admin'; keyId: number; keyName?: string; via?: 'tsig' | 'session'; policy?: KeyPolicy; person?: ActingPerson }
  | { kind: 'user'; keyId: number; keyName?: string; userId: number; via?: 'tsig' | 'session'; policy?: KeyPolicy; person?: ActingPerson };

/**
 * A person signed in (docs/people.md): with `via: 'session'` the principal's `keyId` is the session's id, its
 * `userId` the account the person acts in (0: none yet, which sees nothing) and its `policy` the rules of the
 * person's role there (src/auth/roles.ts), so that every edge decides as for a key. An operator person's
 * principal is the admin's (no `userId`, no policy): `accountId` keeps the account the session acts in.
 */
export interface ActingPerson {
  id: number;
  email: string;
  /** the role in the account acted in; null: no account (only the person's own things: invitations, sessions) */
  role: Role | null;
  /** the account the session acts in; null: none */
  accountId: number | null;
  /** an operator person: the principal is of kind `admin` */
  operator: boolean;
  /**
   * the Consistency-Token of the latest write made with the session, as the session had it when the request
   * was authenticated: a read with the session waits for a standby to have replayed it (docs/deployment.md)
   */
  consistencyToken?: string;
}
/**
 * A signed-in person's principal: `sessionId` the session's id (0: before the session begins), `accountId` the
 * account acted in (absent or null: none, which sees nothing), `role` the person's role there and `policy` its
 * rules (given by the caller that decides requests; absent, the principal only names the actor).
 */
/** who made a change, as the journal and the events name its author */
export interface ChangeAuthorFields {
  keyId?: number;
  tsigKeyId?: number;
  keyName?: string;
  userId?: number;
  email?: string;
}

/**
 * A change's author from its principal: a person signed in is named by e-mail (docs/people.md), since a session's
 * id is no key; a DNS UPDATE by its TSIG key; else the API key, with its user (none: the admin's).
 */
export function changeAuthor(principal: Principal): ChangeAuthorFields {
  return {
    ...(principal.via === 'tsig' ? { tsigKeyId: principal.keyId } : principal.via === 'session' ? {} : { keyId: principal.keyId }),
    keyName: principal.keyName,
    userId: principal.kind === 'user' ? principal.userId : undefined,
    email: principal.via === 'session' ? principal.person?.email : undefined,
  };
}

/**
 * The principal of a change the service makes on its own (a transfer in, an ALIAS refresh, a signer's step): it
 * passes the write engine's scope checks as the admin, and `name` is what the history shows as its author.
 */
export function servicePrincipal(name: string): Principal {
  return { kind: 'admin', keyId: 0, keyName: name };
}

export function personPrincipal(
  person: { id: number; email: string },
  acting: {
    sessionId?: number;
    accountId?: number | null;
    role?: Role | null;
    policy?: KeyPolicy;
    operator?: boolean;
    consistencyToken?: string | null;
  } = {},
): Principal {
  const actingPerson: ActingPerson = {
    id: person.id,
    email: person.email,
    role: acting.role ?? null,
    accountId: acting.accountId || null,
    operator: acting.operator === true,
    ...(acting.consistencyToken ? { consistencyToken: acting.consistencyToken } : {}),
  };
  // an operator person acts as the admin key does, in every account, with no rule (docs/people.md, «The operator»)
  if (actingPerson.operator)
    return { kind: 'admin', via: 'session', keyId: acting.sessionId ?? 0, keyName: person.email, person: actingPerson };
  return {
    kind: 'user',
    via: 'session',
    keyId: acting.sessionId ?? 0,
    keyName: person.email,
    userId: acting.accountId ?? 0,
    ...('policy' in acting ? { policy: acting.policy } : {}),
    person: actingPerson,
  };
}

/** does the principal act with the operator's rights (the admin key, or a session of an operator person)? */
export function isOperator(principal: Principal): boolean {
  return principal.kind === 'admin';
}

/** the account a person's session acts in (null: none, or a key) */
export function actingAccountId(principal: Principal): number | null {
  return principal.via === 'session' ? (principal.person?.accountId ?? null) : null;
}

/*
 * `policy`: the key's least-privilege policy (src/auth/policy.ts); absent or without rules, the key is
 * unrestricted within its scope (every zone of its user, or everything for an admin key).
 */

/** refuses (403 FORBIDDEN) a principal without the operator's rights: the admin key's, or an operator person's */
export function requireAdmin(principal: Principal): void {
  if (!isOperator(principal)) throw new DomainError('FORBIDDEN');
}

/** The user whose data this principal may see, or undefined for the admin (all users). */
export function scopeUserId(principal: Principal): number | undefined {
  return principal.kind === 'user' ? principal.userId : undefined;
}

export function canSeeUser(principal: Principal, userId: number): boolean {
  return principal.kind === 'admin' || principal.userId === userId;
}

/** may this principal keep webhooks? a person by role (managesWebhooks); a key's webhooks are its rules' */
export function keepsWebhooks(principal: Principal): boolean {
  return principal.kind !== 'user' || !principal.person || managesWebhooks(principal.person.role);
}

/**
 * throws FORBIDDEN_BY_ROLE (field `role`) when the principal is a person whose role keeps no webhook; a key's
 * webhooks carry only what the key may read (EventsService), a person's are their role's
 */
export function requireWebhookManager(principal: Principal): void {
  if (keepsWebhooks(principal) || principal.kind !== 'user') return;
  const role = principal.person?.role ?? 'person acting in no account';
  throw new DomainError('FORBIDDEN_BY_ROLE', `a ${role} may not add or change the account's webhooks`, [
    { field: 'role', code: 'FORBIDDEN_BY_ROLE', message: `a ${role} may not keep webhooks` },
  ]);
}
