import { Migration } from '@mikro-orm/migrations';

/**
 * Nameserver sets (docs/transfers.md, «Nameserver sets»): named fleets of secondaries, each with its NS names
 * and its own catalog zone (RFC 9432). Every zone belongs to one (`domains.nameserver_set`).
 *
 * The `default` set (id 1) is the row zones point at when nothing else is said; its secondaries, NS names and
 * catalog come from the settings (SECONDARIES, DEFAULT_NS, CATALOG_ZONE), so its three columns are null and a
 * check keeps them so: the settings and the table never disagree, and a fresh install and an upgraded one
 * behave as before. Other sets hold their own, and their catalog names are unique.
 *
 * `catalog_departures`: a zone moved to another set stays a member of its old set's catalog until the new set's
 * secondaries serve it (the worker sees their serial), so that some set serves it all along.
 */
export class Migration20261127010000_nameserver_sets extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "nameserver_sets" (
      "id" bigserial primary key,
      "name" text not null,
      "secondaries" text[] null,
      "ns_names" text[] null,
      "catalog_zone" text null,
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now(),
      constraint "nameserver_sets_name_unique" unique ("name"),
      constraint "nameserver_sets_catalog_zone_unique" unique ("catalog_zone"),
      constraint "nameserver_sets_name_check" check ("name" ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
      constraint "nameserver_sets_default_from_settings" check (
        ("name" = 'default') = ("secondaries" is null and "ns_names" is null and "catalog_zone" is null)),
      constraint "nameserver_sets_ns_names_check" check ("ns_names" is null or cardinality("ns_names") between 1 and 13),
      constraint "nameserver_sets_secondaries_check" check ("secondaries" is null or cardinality("secondaries") <= 50),
      constraint "nameserver_sets_catalog_zone_check" check ("catalog_zone" is null or "catalog_zone" = lower("catalog_zone") and "catalog_zone" not like '%.'));`);
    this.addSql(`insert into "nameserver_sets" ("id", "name") values (1, 'default');`);
    this.addSql(`select setval(pg_get_serial_sequence('nameserver_sets', 'id'), 1);`);
    // a constant default: no table rewrite (PostgreSQL 11+), every existing zone is in the default set
    this.addSql(`alter table "domains" add column "nameserver_set" bigint not null default 1 references "nameserver_sets" ("id");`);
    // the catalog of one set, read in id order (AXFR's keyset), and the FK's look-up when a set is deleted
    this.addSql(`create index "domains_nameserver_set_index" on "domains" ("nameserver_set", "id");`);
    this.addSql(`create table "catalog_departures" (
      "domain_id" bigint primary key references "domains" ("id") on delete cascade,
      "nameserver_set" bigint not null references "nameserver_sets" ("id"),
      "created_at" timestamptz not null default now());`);
    this.addSql(`create index "catalog_departures_set_index" on "catalog_departures" ("nameserver_set");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table "catalog_departures";`);
    this.addSql(`alter table "domains" drop column "nameserver_set";`);
    this.addSql(`drop table "nameserver_sets";`);
  }
}
