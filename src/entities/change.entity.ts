import { BigIntType, Entity, Index, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';

export interface JournalRecord { owner: string; type: string; ttl: number; rdata: string }
export type ChangeKind = 'zone-created' | 'zone-changed' | 'zone-deleted';

/**
 * The change journal: one row per committed change of a zone (the catalog zone included), written in the same
 * transaction as the change and never updated. A row not yet published is also in the outbox (ChangeOutbox,
 * written by the insert trigger); the propagation worker publishes it after commit (NOTIFY), and the DNS
 * primary answers IXFR from the removed/added record sets (RFC 1995 §4). No foreign key to `domains`: the
 * row of a deleted zone must outlive the zone, so that the worker still tells the secondaries.
 */
@Entity({ tableName: 'changes' })
@Index({ name: 'changes_zone_serial_index', properties: ['zone', 'serialAfter'] })
export class Change {
  [OptionalProps]?: 'createdAt' | 'serialBefore';

  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @Property({ type: new BigIntType('number') })
  domainId!: number;

  /** zone name (lower-case, no trailing dot) */
  @Property({ type: 'text' })
  zone!: string;

  @Property({ type: 'text' })
  kind!: ChangeKind;

  @Property({ type: new BigIntType('number'), nullable: true })
  serialBefore?: number | null = null;

  @Property({ type: new BigIntType('number') })
  serialAfter!: number;

  @Property({ type: 'jsonb' })
  removed: JournalRecord[] = [];

  @Property({ type: 'jsonb' })
  added: JournalRecord[] = [];

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = new Date();
}

/**
 * The outbox: the journal rows not yet published, one row each, inserted by the `changes` insert trigger in the
 * change's own transaction and deleted by the worker's claim (Migration20261123120000_change_outbox). No
 * foreign key: the insert path stays one index, and pruning never takes a row still here.
 */
@Entity({ tableName: 'change_outbox' })
export class ChangeOutbox {
  @PrimaryKey({ type: new BigIntType('number'), autoincrement: false })
  changeId!: number;
}
