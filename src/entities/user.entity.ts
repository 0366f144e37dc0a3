import { BigIntType, Entity, Index, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';

@Entity({ tableName: 'users' })
// e-mail is unique regardless of letter case (docs/decisions.md §1, "Duplicate Email")
@Index({ name: 'users_email_lower_unique', expression: 'create unique index "users_email_lower_unique" on "users" (lower("email"))' })
export class User {
  [OptionalProps]?: 'createdAt';

  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @Property({ type: 'text' })
  email!: string;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = new Date();
}
