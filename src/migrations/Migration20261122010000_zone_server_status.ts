import { Migration } from '@mikro-orm/migrations';

/**
 * Propagation: the per-zone, per-secondary status table, and a trigger that wakes the propagation
 * worker (LISTEN zonekeeper_changes) when a journal/outbox row commits. pg_notify is transactional: the
 * notification is delivered at commit, never for a rolled-back change (the worker also polls as a fallback).
 */
export class Migration20261122010000_zone_server_status extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "zone_server_status" ("id" bigserial primary key, "domain_id" bigint not null, "server" text not null, "served_serial" bigint null, "state" text not null default 'pending', "error" text null, "attempts" int not null default 0, "next_check_at" timestamptz not null default now(), "updated_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "zone_server_status_due_index" on "zone_server_status" ("next_check_at") where "state" <> 'in_sync';`);
    this.addSql(
      `alter table "zone_server_status" add constraint "zone_server_status_domain_server_unique" unique ("domain_id", "server");`,
    );

    this.addSql(
      `alter table "zone_server_status" add constraint "zone_server_status_domain_id_foreign" foreign key ("domain_id") references "domains" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `create or replace function "zonekeeper_changes_notify"() returns trigger language plpgsql as $fn$ begin perform pg_notify('zonekeeper_changes', NEW."zone"); return null; end $fn$;`,
    );
    this.addSql(
      `create trigger "changes_notify_trigger" after insert on "changes" for each row execute function "zonekeeper_changes_notify"();`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists "changes_notify_trigger" on "changes";`);
    this.addSql(`drop function if exists "zonekeeper_changes_notify"();`);
    this.addSql(`drop table if exists "zone_server_status" cascade;`);
  }
}
