import { Migration } from '@mikro-orm/migrations';

/**
 * ALIAS/ANAME flattening (docs/templates-and-alias.md).
 *
 * - `records.derived_from`: the id of the ALIAS or ANAME an A/AAAA row was derived from (null: a person's
 *   record). No foreign key: when the ALIAS goes, the worker removes its derived rows through the write engine,
 *   so the removal is a journalled serial step that secondaries take by IXFR, not a silent cascade.
 * - `alias_refresh`: the worker's schedule, one row per ALIAS/ANAME, claimed with FOR UPDATE SKIP LOCKED so a
 *   refresh runs once across worker processes; it keeps the last outcome (`state`, `reason`) for the status,
 *   and the target it was scheduled for (an edited target is asked at once).
 */
export class Migration20261126080000_alias_flattening extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "records" add column "derived_from" bigint null;`);
    this.addSql(`create index "records_derived_from_index" on "records" ("derived_from") where "derived_from" is not null;`);
    this.addSql(`create table "alias_refresh" (
      "record_id" bigint primary key constraint "alias_refresh_record_id_foreign" references "records" ("id") on delete cascade,
      "domain_id" bigint not null,
      "target" text not null,
      "next_refresh_at" timestamptz not null default now(),
      "leased_until" timestamptz null,
      "state" text not null default 'pending',
      "reason" text null,
      "addresses" jsonb not null default '[]',
      "authenticated" boolean not null default false,
      "checked_at" timestamptz null);`);
    this.addSql(`create index "alias_refresh_due_index" on "alias_refresh" ("next_refresh_at");`);
    this.addSql(`create index "alias_refresh_domain_index" on "alias_refresh" ("domain_id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table "alias_refresh";`);
    this.addSql(`alter table "records" drop column "derived_from";`);
  }
}
