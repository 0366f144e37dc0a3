import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000000_initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "catalog_state" ("name" text not null, "serial" bigint not null, constraint "catalog_state_pkey" primary key ("name"));`,
    );

    this.addSql(
      `create table "changes" ("id" bigserial primary key, "domain_id" bigint not null, "zone" text not null, "kind" text not null, "serial_before" bigint null, "serial_after" bigint not null, "removed" jsonb not null, "added" jsonb not null, "created_at" timestamptz not null default now(), "published_at" timestamptz null);`,
    );
    this.addSql(`create index "changes_unpublished_index" on "changes" ("id") where "published_at" is null;`);
    this.addSql(`create index "changes_zone_serial_index" on "changes" ("zone", "serial_after");`);

    this.addSql(
      `create table "users" ("id" bigserial primary key, "email" text not null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`create unique index "users_email_lower_unique" on "users" (lower("email"));`);

    this.addSql(
      `create table "domains" ("id" bigserial primary key, "user_id" bigint not null, "name" text not null, "serial" bigint not null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "domains_user_id_index" on "domains" ("user_id");`);
    this.addSql(`alter table "domains" add constraint "domains_name_unique" unique ("name");`);

    this.addSql(
      `create table "records" ("id" bigserial primary key, "domain_id" bigint not null, "owner" text not null, "type" text not null, "rdata" text not null, "ttl" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "records_type_id_index" on "records" ("type", "id");`);
    this.addSql(`create index "records_domain_owner_index" on "records" ("domain_id", "owner");`);
    this.addSql(`create unique index "records_identity_unique" on "records" ("domain_id", "owner", "type", md5("rdata"));`);

    this.addSql(
      `create table "api_keys" ("id" bigserial primary key, "user_id" bigint null, "name" text not null, "secret_hash" text not null, "created_at" timestamptz not null default now(), "revoked_at" timestamptz null);`,
    );
    this.addSql(`create index "api_keys_user_id_index" on "api_keys" ("user_id");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_secret_hash_unique" unique ("secret_hash");`);

    this.addSql(
      `alter table "domains" add constraint "domains_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "records" add constraint "records_domain_id_foreign" foreign key ("domain_id") references "domains" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "api_keys" add constraint "api_keys_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }
}
