import { Migration } from '@mikro-orm/migrations';

/**
 * A nameserver set's NS names changed with its zones following (`updateNameserverSet(input: {zonesFollow: true})`,
 * docs/transfers.md, «A set's NS names, followed by its zones»): one row per set while its zones follow, taken by
 * the worker under a lease (`lease_until`), so that one process at a time walks the set's zones in id order from
 * `next_zone_id`, and a process that dies leaves the rest to another. The row goes when the last zone is done; the
 * audit log keeps what it did.
 */
export class Migration20261230090000_nameserver_set_ns_follows extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "nameserver_set_ns_follows" (
        "nameserver_set" bigint not null primary key references "nameserver_sets" ("id") on delete cascade,
        "from_names" text[] not null,
        "to_names" text[] not null,
        "actor" text not null,
        "next_zone_id" bigint not null default 0,
        "zones_changed" integer not null default 0,
        "zones_kept" integer not null default 0,
        "refused" jsonb not null default '[]',
        "lease_until" timestamptz null,
        "started_at" timestamptz not null default now());`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table "nameserver_set_ns_follows";`);
  }
}
