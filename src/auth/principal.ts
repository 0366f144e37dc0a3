import { DomainError } from '../errors/catalogue';
import type { KeyPolicy } from './policy';
import type { Role } from './roles';

/**
 * Who is calling: the admin key sees everything; a user key sees only that user's zones and records. `keyId`
 * is an API key's id, or with `via: 'tsig'` a TSIG key's (a DNS UPDATE, RFC 2136), so history names either.
 */
export type Principal =
  | { kind: 'admin'; keyId: number; keyName?: string; via?: 'tsig'; policy?: KeyPolicy }
  | { kind: 'user'; keyId: number; keyName?: string; userId: number; via?: 'tsig' | 'session'; policy?: KeyPolicy; person?: ActingPerson };

/**
 * A person signed in (docs/people.md): with `via: 'session'` the principal's `keyId` is the session's id, its
 * `userId` the account the person acts in (0: none yet, which sees nothing) and its `policy` the rules of the
 * person's role there (src/auth/roles.ts), so that every edge decides as for a key.
 */
export interface ActingPerson {
  id: number;
  email: string;
  /** the role in the account acted in; null: no account (only the person's own things: invitations, sessions) */
  role: Role | null;
}
/**
 * A signed-in person's principal: `sessionId` the session's id (0: before the session begins), `accountId` the
 * account acted in (absent or null: none, which sees nothing), `role` the person's role there and `policy` its
 * rules (given by the caller that decides requests; absent, the principal only names the actor).
 */
/**
 * The principal of a change the service makes on its own (a transfer in, an ALIAS refresh, a signer's step): it
 * passes the write engine's scope checks as the admin, and `name` is what the history shows as its author.
 */
export function servicePrincipal(name: string): Principal {
  return { kind: 'admin', keyId: 0, keyName: name };
}

export function personPrincipal(
  person: { id: number; email: string },
  acting: { sessionId?: number; accountId?: number | null; role?: Role | null; policy?: KeyPolicy } = {},
): Principal {
  return {
    kind: 'user',
    via: 'session',
    keyId: acting.sessionId ?? 0,
    keyName: person.email,
    userId: acting.accountId ?? 0,
    ...('policy' in acting ? { policy: acting.policy } : {}),
    person: { id: person.id, email: person.email, role: acting.role ?? null },
  };
}
/*
 * `policy`: the key's least-privilege policy (src/auth/policy.ts); absent or without rules, the key is
 * unrestricted within its scope (every zone of its user, or everything for an admin key).
 */

export function requireAdmin(principal: Principal): void {
  if (principal.kind !== 'admin') throw new DomainError('FORBIDDEN');
}

/** The user whose data this principal may see, or undefined for the admin (all users). */
export function scopeUserId(principal: Principal): number | undefined {
  return principal.kind === 'user' ? principal.userId : undefined;
}

export function canSeeUser(principal: Principal, userId: number): boolean {
  return principal.kind === 'admin' || principal.userId === userId;
}
