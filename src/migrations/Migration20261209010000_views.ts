import { Migration } from '@mikro-orm/migrations';

/**
 * Views (docs/views.md): split horizon as overlays on one zone. A view is the operator's (a name, the client
 * networks a secondary's `match-clients` serves it to, a precedence, the TSIG key its secondaries transfer with,
 * and the addresses of those secondaries for NOTIFY). A view holds only the RRsets it changes in a zone
 * (`view_overlays`: `replace` with its own records, or `hide`); the view's zone is the base zone with them
 * applied. `view_serials` holds the serial of each (zone, view) that ever had an overlay, and the serial its
 * secondaries were last sent a NOTIFY of; a (zone, view) without a row is the base zone, serial and all.
 */
export class Migration20261209010000_views extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "views" (
      "id" bigserial primary key,
      "name" text not null constraint "views_name_unique" unique,
      "networks" text[] not null default '{}',
      "precedence" int not null default 0,
      "tsig_key_id" bigint not null constraint "views_tsig_key_id_foreign" references "tsig_keys" ("id") on delete restrict,
      "notify" text[] not null default '{}',
      "created_at" timestamptz not null default now());`);
    this.addSql(`create unique index "views_tsig_key_unique" on "views" ("tsig_key_id");`);
    this.addSql(`create table "view_overlays" (
      "id" bigserial primary key,
      "domain_id" bigint not null constraint "view_overlays_domain_id_foreign" references "domains" ("id") on delete cascade,
      "view_id" bigint not null constraint "view_overlays_view_id_foreign" references "views" ("id") on delete cascade,
      "owner" text not null,
      "type" text not null,
      "action" text not null constraint "view_overlays_action_check" check ("action" in ('replace', 'hide')),
      "records" jsonb not null default '[]',
      "updated_at" timestamptz not null default now());`);
    this.addSql(`create unique index "view_overlays_rrset_unique" on "view_overlays" ("domain_id", "view_id", "owner", "type");`);
    this.addSql(`create index "view_overlays_view_id_index" on "view_overlays" ("view_id");`);
    this.addSql(`create table "view_serials" (
      "domain_id" bigint not null constraint "view_serials_domain_id_foreign" references "domains" ("id") on delete cascade,
      "view_id" bigint not null constraint "view_serials_view_id_foreign" references "views" ("id") on delete cascade,
      "serial" bigint not null,
      "notified_serial" bigint null,
      primary key ("domain_id", "view_id"));`);
    this.addSql(`create index "view_serials_view_id_index" on "view_serials" ("view_id");`);
    this.addSql(
      `create index "view_serials_unnotified_index" on "view_serials" ("view_id") where "notified_serial" is distinct from "serial";`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "view_serials";`);
    this.addSql(`drop table if exists "view_overlays";`);
    this.addSql(`drop table if exists "views";`);
  }
}
