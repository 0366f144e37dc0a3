import { Migration } from '@mikro-orm/migrations';

/**
 * Disabled records (docs/powerdns-api.md, docs/graphql.md): records a zone keeps and does not serve, as
 * PowerDNS-Admin's disable toggle leaves them. They live beside the records, not among them, so that nothing
 * that serves a zone (answers, AXFR, IXFR, signing, the catalog, the record counts) can read them: disabling a
 * record removes it from `records` (a change like any other, journalled) and keeps it here, in the same
 * transaction; enabling is the reverse. A record is in one of the two tables, never both. They go with their zone.
 */
export class Migration20261130020000_disabled_records extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "disabled_records" (
      "domain_id" bigint not null references "domains" ("id") on delete cascade,
      "owner" text not null,
      "type" text not null,
      "rdata" text not null,
      "ttl" int not null,
      primary key ("domain_id", "owner", "type", "rdata"));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "disabled_records";`);
  }
}
