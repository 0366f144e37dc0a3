import { BigIntType, Entity, Index, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';

export interface JournalRecord {
  owner: string;
  type: string;
  ttl: number;
  rdata: string;
  /**
   * the record was not deleted or created but toggled (docs/history.md): in `removed`, disabled (kept, not
   * served); in `added`, enabled (served again). IXFR serves it as any removal or addition.
   */
  toggled?: true;
}
/**
 * A finding a change set's plan answered with the change (dns/zone-checks.ts, docs/changes.md «Checks on every
 * plan»), kept in its journal row (`findings`) so that the history says what the change was warned of.
 */
export interface JournalFinding {
  code: string;
  severity: 'error' | 'warning';
  /** the RRset it is about: its owner (relative, '@' the apex) and type */
  owner: string;
  type: string;
  rfc?: string;
  message: string;
}

/**
 * An RRset's comment a change changed (docs/changes.md, «Comments»), kept in its journal row (`comments`): the
 * comment's text before and after (null: none), as `Record.comment` reads it. Comments are no DNS data: a change
 * of comments alone is a row of kind `comment-changed` that steps no serial.
 */
export interface JournalCommentChange {
  /** the RRset's owner (relative, '@' the apex) and type */
  owner: string;
  type: string;
  before: string | null;
  after: string | null;
}

export type ChangeKind = 'zone-created' | 'zone-changed' | 'zone-deleted' | 'comment-changed';

/**
 * The change journal and outbox: one row per committed change of a zone (the catalog zone included), written
 * in the same transaction as the change. The propagation worker publishes rows after commit (NOTIFY), and the
 * DNS primary answers IXFR from the removed/added record sets (RFC 1995 §4). No foreign key to `domains`: the
 * row of a deleted zone must outlive the zone, so that the worker still tells the secondaries.
 */
@Entity({ tableName: 'changes' })
@Index({ name: 'changes_zone_serial_index', properties: ['zone', 'serialAfter'] })
@Index({
  name: 'changes_unpublished_index',
  expression: 'create index "changes_unpublished_index" on "changes" ("id") where "published_at" is null',
})
export class Change {
  [OptionalProps]?: 'createdAt' | 'publishedAt' | 'serialBefore';

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

  @Property({ type: 'timestamptz', nullable: true })
  publishedAt?: Date | null = null;
}
