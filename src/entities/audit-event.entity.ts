import { BigIntType, Entity, Index, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * One event of the audit log (docs/audit-log.md; written and read as plain SQL by src/repositories/audit-events.ts;
 * the entity keeps MikroORM's schema whole). Failed authentications are one row per source address and minute
 * with a `count` (the partial unique index of the migration, Migration20261124150100_audit_log).
 */
@Entity({ tableName: 'audit_events' })
@Index({ name: 'audit_events_kind_id_index', properties: ['kind', 'id'] })
export class AuditEvent {
  [OptionalProps]?: 'at' | 'actorAdmin' | 'detail' | 'count';

  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @Property({ type: 'timestamptz', defaultRaw: 'now()', index: 'audit_events_at_index' })
  at: Date = new Date();

  @Property({ type: 'text' })
  kind!: string;

  @Property({ type: 'text', nullable: true })
  actorKeyType?: 'api' | 'tsig' | null;

  @Property({ type: new BigIntType('number'), nullable: true })
  actorKeyId?: number | null;

  @Property({ type: 'text', nullable: true })
  actorKeyName?: string | null;

  @Property({ type: new BigIntType('number'), nullable: true })
  actorUserId?: number | null;

  @Property({ type: 'boolean', defaultRaw: 'false' })
  actorAdmin: boolean = false;

  @Property({ type: 'text', nullable: true })
  subject?: string | null;

  @Property({ type: 'jsonb', defaultRaw: `'{}'` })
  detail: Record<string, unknown> = {};

  @Property({ type: 'text', nullable: true })
  sourceAddress?: string | null;

  @Property({ type: 'integer', defaultRaw: '1' })
  count: number = 1;
}
