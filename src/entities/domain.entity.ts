import { BigIntType, Entity, Index, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { User } from './user.entity';

/** A DNS zone. `serial` is the SOA serial of the zone; raising it in every change's transaction locks the zone row. */
@Entity({ tableName: 'domains' })
// keyset pages of one user's zones (`where user_id = ? and id > ? order by id`)
@Index({ name: 'domains_user_id_id_index', properties: ['user', 'id'] })
export class Domain {
  [OptionalProps]?: 'createdAt' | 'recordCount';

  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @ManyToOne(() => User, { ref: true, deleteRule: 'cascade' })
  user!: Ref<User>;

  /** lower-case, no trailing dot, punycode */
  @Property({ type: 'text', unique: 'domains_name_unique' })
  name!: string;

  @Property({ type: new BigIntType('number') })
  serial!: number;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = new Date();

  /** the zone's records, kept by the serial compare-and-set of every change (the record quota is checked against it) */
  @Property({ type: 'int', default: 0 })
  recordCount: number = 0;
}
