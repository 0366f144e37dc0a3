import { Migration } from '@mikro-orm/migrations';

/**
 * Record templates (docs/templates-and-alias.md): named record sets a new zone starts with, admin-wide
 * (`user_id` null) or one user's. `records` is the list of {owner, type, rdata, ttl} as saved, with the
 * `{zone}` placeholder unexpanded; it was checked against the zone rules when saved. One name per user and
 * one admin-wide (the expression index: null user ids would otherwise never collide).
 */
export class Migration20261126070000_record_templates extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "record_templates" (
      "id" bigserial primary key,
      "user_id" bigint null constraint "record_templates_user_id_foreign" references "users" ("id") on update cascade on delete cascade,
      "name" text not null,
      "records" jsonb not null,
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now());`);
    this.addSql(`create unique index "record_templates_owner_name_unique" on "record_templates" (coalesce("user_id", 0), "name");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table "record_templates";`);
  }
}
