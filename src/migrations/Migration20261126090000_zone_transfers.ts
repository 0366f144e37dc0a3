import { Migration } from '@mikro-orm/migrations';

/**
 * Zone transfers between accounts (docs/people.md, «Moving a zone to another account»): an offer of one zone by
 * its account's owner to another account, pending until the receiving owner accepts it, either side cancels it
 * or it expires. One offer per zone at a time. Accepted or cancelled offers are removed (the audit log keeps them).
 */
export class Migration20261126090000_zone_transfers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "zone_transfers" (
      "id" bigserial primary key,
      "domain_id" bigint not null references "domains" ("id") on delete cascade,
      "from_user_id" bigint not null references "users" ("id") on delete cascade,
      "to_user_id" bigint not null references "users" ("id") on delete cascade,
      "offered_by" text null,
      "created_at" timestamptz not null default now(),
      "expires_at" timestamptz not null);`);
    this.addSql(`create unique index "zone_transfers_domain_id_unique" on "zone_transfers" ("domain_id");`);
    this.addSql(`create index "zone_transfers_from_user_id_index" on "zone_transfers" ("from_user_id");`);
    this.addSql(`create index "zone_transfers_to_user_id_index" on "zone_transfers" ("to_user_id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "zone_transfers";`);
  }
}
