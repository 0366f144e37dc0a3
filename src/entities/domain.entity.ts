import { BigIntType, Entity, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { User } from './user.entity';

/** A DNS zone. `serial` is the SOA serial of the zone; raising it in every change's transaction locks the zone row. */
@Entity({ tableName: 'domains' })
export class Domain {
  [OptionalProps]?: 'createdAt';

  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @ManyToOne(() => User, { ref: true, deleteRule: 'cascade', index: 'domains_user_id_index' })
  user!: Ref<User>;

  /** lower-case, no trailing dot, punycode */
  @Property({ type: 'text', unique: 'domains_name_unique' })
  name!: string;

  @Property({ type: new BigIntType('number') })
  serial!: number;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = new Date();
}
