import { BigIntType, Entity, Index, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { Domain } from './domain.entity';

/**
 * One resource record. `owner` is relative to the zone ('@' = apex), `type` upper-case, `rdata` in the DNS
 * model's canonical form, so that identical records compare equal as text.
 */
@Entity({ tableName: 'records' })
// identical record = same zone, owner, type and canonical RDATA; md5 keeps the index entry small for long TXT.
// Its prefix (domain_id, owner[, type]) also serves the look-ups by owner (the zone rules, the DNS primary), so
// no separate (domain_id, owner) index is kept: each one is maintained on every write
// (docs/performance.md, «Writing zones»).
@Index({
  name: 'records_identity_unique',
  expression: 'create unique index "records_identity_unique" on "records" ("domain_id", "owner", "type", md5("rdata"))',
})
@Index({ name: 'records_type_id_index', properties: ['type', 'id'] })
// keyset pages of one zone's records (`where domain_id = ? and id > ? order by id`)
@Index({ name: 'records_domain_id_id_index', properties: ['domain', 'id'] })
@Index({
  name: 'records_derived_from_index',
  expression: 'create index "records_derived_from_index" on "records" ("derived_from") where "derived_from" is not null',
})
export class Record {
  [OptionalProps]?: 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  // the zone is checked and its deletion cascades by triggers, once per statement rather than per row as a
  // foreign key would (Migration20261204010000_records_zone_check)
  @ManyToOne(() => Domain, { ref: true, deleteRule: 'cascade', createForeignKeyConstraint: false })
  domain!: Ref<Domain>;

  @Property({ type: 'text' })
  owner!: string;

  @Property({ type: 'text' })
  type!: string;

  @Property({ type: 'text' })
  rdata!: string;

  @Property({ type: 'integer' })
  ttl!: number;

  /**
   * the ALIAS/ANAME this A/AAAA was derived from by the worker (docs/templates-and-alias.md); null: a person's.
   * No foreign key: the worker removes the rows of a deleted ALIAS through the write engine (journalled)
   */
  @Property({ type: new BigIntType('number'), nullable: true })
  derivedFrom?: number | null;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
