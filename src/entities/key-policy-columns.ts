import { OptionalProps, Property } from '@mikro-orm/core';

/**
 * The columns an API key and a TSIG key share, declared once: when the key was made and revoked, its
 * least-privilege policy and limits (docs/least-privilege.md) and the times of its use those limits and the
 * audit log read (docs/audit-log.md). Not an entity: each key's own table holds these columns.
 */
export abstract class KeyPolicyColumns {
  [OptionalProps]?:
    | 'createdAt'
    | 'revokedAt'
    | 'rules'
    | 'preset'
    | 'mayCreateZones'
    | 'mayDeleteZones'
    | 'mayManageKeys'
    | 'expiresAt'
    | 'idleDays'
    | 'allowedNetworks'
    | 'lastUsedAt'
    | 'firstUsedAt'
    | 'expiryAuditedAt'
    | 'idleAuditedAt';

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  revokedAt?: Date | null = null;

  /** least-privilege rules (src/auth/policy.ts, Migration20261124150100_key_policies); null: unrestricted */
  @Property({ type: 'jsonb', nullable: true })
  rules?: unknown[] | null = null;

  @Property({ type: 'text', nullable: true })
  preset?: string | null = null;

  @Property({ type: 'boolean', default: false })
  mayCreateZones: boolean = false;

  @Property({ type: 'boolean', default: false })
  mayDeleteZones: boolean = false;

  @Property({ type: 'boolean', default: false })
  mayManageKeys: boolean = false;

  @Property({ type: 'timestamptz', nullable: true })
  expiresAt?: Date | null = null;

  @Property({ type: 'integer', nullable: true })
  idleDays?: number | null = null;

  @Property({ type: 'text[]', nullable: true })
  allowedNetworks?: string[] | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  lastUsedAt?: Date | null = null;
  /** when the key was first used (the audit log's `*-key-first-used`) */
  @Property({ type: 'timestamptz', nullable: true })
  firstUsedAt?: Date | null = null;
  /** when the audit log recorded the key refused as expired / idle (`key-expired`, `key-idle`: once each) */
  @Property({ type: 'timestamptz', nullable: true })
  expiryAuditedAt?: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  idleAuditedAt?: Date | null = null;
}
