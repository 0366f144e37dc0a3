import { DomainError } from '../errors/catalogue';

/** Who is calling: the admin key sees everything; a user key sees only that user's zones and records. */
export type Principal =
  | { kind: 'admin'; keyId: number; keyName?: string }
  | { kind: 'user'; keyId: number; keyName?: string; userId: number };

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
