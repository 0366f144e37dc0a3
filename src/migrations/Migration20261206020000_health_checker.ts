import { Migration } from '@mikro-orm/migrations';

/**
 * The health checker's own state (docs/health.md, «When the checker cannot reach the root»): one row, whether the
 * root hints answered the last check round that asked them (`root_reachable`), why not (`reason`), since when it
 * is so (`since`) and when a round last said so (`noted_at`). Shared by every process: the worker's rounds and a
 * check asked for write it, the metrics and the API read it.
 */
export class Migration20261206020000_health_checker extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "health_checker" (
      "id" boolean primary key default true check ("id"),
      "root_reachable" boolean not null,
      "reason" text null,
      "since" timestamptz not null default now(),
      "noted_at" timestamptz not null default now()
    );`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "health_checker";`);
  }
}
