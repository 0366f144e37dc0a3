import { BigIntType, BlobType, Entity, ManyToOne, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import type { TsigAlgorithm } from '../dns/wire/tsig';
import { KeyPolicyColumns } from './key-policy-columns';
import { User } from './user.entity';

/**
 * A TSIG key (RFC 8945) for DNS UPDATE (RFC 2136): `user` is null for an admin key, which may update any
 * zone. The secret is kept as is (an HMAC needs it to verify) and shown to the API only when created.
 */
@Entity({ tableName: 'tsig_keys' })
export class TsigKeyEntity extends KeyPolicyColumns {
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
}
