import { BigIntType, Entity, Enum, Index, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { User } from './user.entity';

/** where a zone's data comes from: the API (`primary`) or transfers from its primaries (`secondary`) */
export const ZONE_KINDS = ['primary', 'secondary'] as const;
export type ZoneKind = (typeof ZONE_KINDS)[number];

/** A DNS zone. `serial` is the SOA serial of the zone; raising it in every change's transaction locks the zone row. */
@Entity({ tableName: 'domains' })
// keyset pages of one user's zones (`where user_id = ? and id > ? order by id`)
@Index({ name: 'domains_user_id_id_index', properties: ['user', 'id'] })
export class Domain {
  [OptionalProps]?: 'createdAt' | 'recordCount' | 'kind' | 'serving';

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

  /** `primary`: ours, written through the API; `secondary`: taken by transfer from its primaries (docs/transfers.md) */
  @Enum({ items: [...ZONE_KINDS], default: 'primary' })
  kind: ZoneKind = 'primary';

  /** false while a secondary zone awaits its first transfer, and once it expired: the primary answers nothing of it */
  @Property({ type: 'boolean', default: true })
  serving: boolean = true;
}
