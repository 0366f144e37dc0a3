import { DomainError } from '../errors/catalogue';
import type { KeyPolicy } from './policy';

/**
 * Who is calling: the admin key sees everything; a user key sees only that user's zones and records. `keyId`
 * is an API key's id, or with `via: 'tsig'` a TSIG key's (a DNS UPDATE, RFC 2136), so history names either.
 */
export type Principal =
  | { kind: 'admin'; keyId: number; keyName?: string; via?: 'tsig'; policy?: KeyPolicy }
  | { kind: 'user'; keyId: number; keyName?: string; userId: number; via?: 'tsig'; policy?: KeyPolicy };
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
