import { BigIntType, Entity, Index, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';

@Entity({ tableName: 'users' })
// e-mail is unique regardless of letter case (docs/decisions.md §1, "Duplicate Email")
@Index({ name: 'users_email_lower_unique', expression: 'create unique index "users_email_lower_unique" on "users" (lower("email"))' })
export class User {
  [OptionalProps]?: 'createdAt' | 'zoneCount';

  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @Property({ type: 'text' })
  email!: string;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = new Date();

  /** the admin's rate and quotas for the user (null: the setting's default; README "Rate limits and quotas") */
  @Property({ type: 'int', nullable: true })
  ratePerSecond?: number | null;

  @Property({ type: 'int', nullable: true })
  rateBurst?: number | null;

  @Property({ type: 'int', nullable: true })
  maxZones?: number | null;

  @Property({ type: 'int', nullable: true })
  maxRecordsPerZone?: number | null;

  /** the user's zones, kept by the statements that insert and delete zones (the zone quota is checked against it) */
  @Property({ type: 'int', default: 0 })
  zoneCount: number = 0;
}
