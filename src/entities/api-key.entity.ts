import { BigIntType, Entity, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { User } from './user.entity';

/**
 * An API key. Only the SHA-256 of its secret is stored (keys are 32 random bytes, so a slow hash adds
 * nothing); `user` is null for the admin key.
 */
@Entity({ tableName: 'api_keys' })
export class ApiKey {
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

  @ManyToOne(() => User, { ref: true, nullable: true, deleteRule: 'cascade', index: 'api_keys_user_id_index' })
  user?: Ref<User> | null;

  @Property({ type: 'text' })
  name!: string;

  /** hex SHA-256 of the whole key; unique, so that a key is found by its hash alone */
  @Property({ type: 'text', unique: 'api_keys_secret_hash_unique' })
  secretHash!: string;

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
  /** the key's own rate, besides its user's (null: the setting's default) */
  @Property({ type: 'int', nullable: true })
  ratePerSecond?: number | null;

  @Property({ type: 'int', nullable: true })
  rateBurst?: number | null;
}
