import { BigIntType, Entity, ManyToOne, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { KeyPolicyColumns } from './key-policy-columns';
import { User } from './user.entity';

/**
 * An API key. Only the SHA-256 of its secret is stored (keys are 32 random bytes, so a slow hash adds
 * nothing); `user` is null for the admin key.
 */
@Entity({ tableName: 'api_keys' })
export class ApiKey extends KeyPolicyColumns {
  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @ManyToOne(() => User, { ref: true, nullable: true, deleteRule: 'cascade', index: 'api_keys_user_id_index' })
  user?: Ref<User> | null;

  @Property({ type: 'text' })
  name!: string;

  /** hex SHA-256 of the whole key; unique, so that a key is found by its hash alone */
  @Property({ type: 'text', unique: 'api_keys_secret_hash_unique' })
  secretHash!: string;

  /** the key's own rate, besides its user's (null: the setting's default) */
  @Property({ type: 'int', nullable: true })
  ratePerSecond?: number | null;

  @Property({ type: 'int', nullable: true })
  rateBurst?: number | null;
}
