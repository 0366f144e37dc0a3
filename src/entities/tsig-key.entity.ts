import { BigIntType, BlobType, Entity, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import type { TsigAlgorithm } from '../dns/wire/tsig';
import { User } from './user.entity';

/**
 * A TSIG key (RFC 8945) for DNS UPDATE (RFC 2136): `user` is null for an admin key, which may update any
 * zone. The secret is kept as is (an HMAC needs it to verify) and shown to the API only when created.
 */
@Entity({ tableName: 'tsig_keys' })
export class TsigKeyEntity {
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

  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @ManyToOne(() => User, { ref: true, nullable: true, deleteRule: 'cascade', index: 'tsig_keys_user_id_index' })
  user?: Ref<User> | null;

  /** the key's name on the wire, canonical: lower case, no final dot */
  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  algorithm!: TsigAlgorithm;

  @Property({ type: BlobType, lazy: true })
  secret!: Buffer;

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
