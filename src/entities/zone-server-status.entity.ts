import { BigIntType, Entity, Index, ManyToOne, OptionalProps, PrimaryKey, Property, type Ref, Unique } from '@mikro-orm/core';
import { Domain } from './domain.entity';

export type ZoneServerState = 'pending' | 'in_sync' | 'error';

/**
 * Propagation state of one zone on one secondary name server, kept by the propagation worker (src/worker):
 * `pending` after a change is published, `in_sync` once the server serves the zone's serial (or a later one),
 * `error` with the reason when it keeps failing. Checks are retried with backoff (`attempts`, `nextCheckAt`).
 */
@Entity({ tableName: 'zone_server_status' })
@Unique({ name: 'zone_server_status_domain_server_unique', properties: ['domain', 'server'] })
@Index({
  name: 'zone_server_status_due_index',
  expression: `create index "zone_server_status_due_index" on "zone_server_status" ("next_check_at") where "state" <> 'in_sync'`,
})
export class ZoneServerStatus {
  [OptionalProps]?: 'updatedAt' | 'attempts' | 'nextCheckAt' | 'state' | 'servedSerial' | 'error';

  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @ManyToOne(() => Domain, { ref: true, deleteRule: 'cascade' })
  domain!: Ref<Domain>;

  /** 'address:port' of the secondary, as configured in SECONDARIES */
  @Property({ type: 'text' })
  server!: string;

  /** the SOA serial the server answered with last (null: never answered) */
  @Property({ type: new BigIntType('number'), nullable: true })
  servedSerial?: number | null = null;

  @Property({ type: 'text', default: 'pending' })
  state: ZoneServerState = 'pending';

  @Property({ type: 'text', nullable: true })
  error?: string | null = null;

  @Property({ type: 'integer', default: 0 })
  attempts: number = 0;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  nextCheckAt: Date = new Date();

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  updatedAt: Date = new Date();
}
