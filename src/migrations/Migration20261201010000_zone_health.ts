import { Migration } from '@mikro-orm/migrations';

/**
 * Zone health (docs/health.md): what the health checker found of each zone from where resolvers stand.
 *
 * - `zone_health`: one row per zone, its state (`unknown` until its first check, then `ok`, `warning` or
 *   `critical`), when it was last checked, and when it is due; the worker claims due rows with FOR UPDATE SKIP
 *   LOCKED and moves `next_check_at` ahead by a lease, so several workers share the zones and a worker that dies
 *   leaves its zones to the others after the lease
 * - `zone_health_findings`: the findings of the last check, one row per zone, code and server ('' when the
 *   finding names none); `since` is when the finding was first seen and stays while later checks see it again
 */
export class Migration20261201010000_zone_health extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "zone_health" (
      "domain_id" bigint primary key references "domains" ("id") on delete cascade,
      "state" text not null default 'unknown' check ("state" in ('unknown', 'ok', 'warning', 'critical')),
      "checked_at" timestamptz null,
      "next_check_at" timestamptz not null default now()
    );`);
    this.addSql(`create index "zone_health_due_index" on "zone_health" ("next_check_at");`);
    this.addSql(`create table "zone_health_findings" (
      "domain_id" bigint not null references "domains" ("id") on delete cascade,
      "code" text not null,
      "server" text not null default '',
      "severity" text not null check ("severity" in ('critical', 'warning', 'info')),
      "message" text not null,
      "since" timestamptz not null default now(),
      constraint "zone_health_findings_pkey" primary key ("domain_id", "code", "server")
    );`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "zone_health_findings";`);
    this.addSql(`drop table if exists "zone_health";`);
  }
}
