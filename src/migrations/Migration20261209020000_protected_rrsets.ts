import { Migration } from '@mikro-orm/migrations';

/**
 * Protected RRsets (docs/changes.md, "Protected RRsets"): an RRset (owner and type) of a zone that its owners
 * locked, so that no write of any edge changes it until it is unlocked; and a zone's `strict_checks`, which
 * makes a change set's warnings refuse it as its errors do.
 */
export class Migration20261209020000_protected_rrsets extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "protected_rrsets" (
      "id" bigserial primary key,
      "domain_id" bigint not null references "domains" ("id") on delete cascade,
      "owner" text not null,
      "type" text not null,
      "locked_by" text null,
      "locked_at" timestamptz not null default now(),
      constraint "protected_rrsets_unique" unique ("domain_id", "owner", "type")
    );`);
    this.addSql(`alter table "domains" add column "strict_checks" boolean not null default false;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "domains" drop column if exists "strict_checks";`);
    this.addSql(`drop table if exists "protected_rrsets";`);
  }
}
