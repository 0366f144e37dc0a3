import type { Database } from '../db/pool';
import type { TsigKey } from '../dns/wire/tsig';
import type { Principal } from '../auth/principal';
import type { DnsUpdateRequest } from '../services/transfers/dns-updates.service';
import type { DomainError } from '../errors/catalogue';

/**
 * What the primary needs for DNS UPDATE (RFC 2136) and for requests signed with a user's TSIG key: the key of
 * a name and the principal it acts as (TsigKeysService.findActive: cached 5 s, a revocation is at once in the
 * process that made it), and the service that applies an update. Absent: the primary answers UPDATE with NOTIMP.
 * Each is handed the database the message's work runs on (`PrimaryHandler.handle`: its failover wait capped).
 */
export interface UpdateDesk {
  findKey(db: Database, name: string): Promise<{ key: TsigKey; principal: Principal; lastUsedAt?: Date } | undefined>;
  /**
   * Once a message's TSIG verified: why its key may not be used now from that address (expired, idle, outside
   * its allowedNetworks: src/auth/policy.ts), or undefined, the use then noted (TsigKeysService.admitUse).
   */
  admitUse?(db: Database, found: { principal: Principal; lastUsedAt?: Date }, address: string): Promise<string | undefined>;
  apply(db: Database, principal: Principal, request: DnsUpdateRequest): Promise<{ changed: boolean; serial: number }>;
  /** a request signed with the key verified (the audit log records a key's first use) */
  keyUsed?(db: Database, principal: Principal, remote: string): Promise<void>;
  /** a request's TSIG failed (BADKEY, BADSIG, BADTIME, BADTRUNC): a failed authentication, for the audit log's summary */
  authenticationFailed?(db: Database, remote: string): void;
  /**
   * a transfer refused by its key's policy (FORBIDDEN_BY_POLICY): for the audit log's summary of refusals, as an
   * UPDATE refused by the policy is (docs/audit-log.md, «Refusals, summarised»)
   */
  transferRefused?(db: Database, principal: Principal, error: DomainError, remote: string): void;
}
