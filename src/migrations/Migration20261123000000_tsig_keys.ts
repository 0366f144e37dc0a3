import { Migration } from '@mikro-orm/migrations';

/**
 * DNS UPDATE (RFC 2136) keys: TSIG keys (RFC 8945) per user, or the admin's (user_id null), each
 * with the secret itself — an HMAC needs it on both sides, as in BIND's key files and PowerDNS's `tsigkeys`
 * table — shown to the API once. A key is found by its name on the wire, so an active name is unique.
 * Journal rows written through UPDATE name the TSIG key as their author.
 */
export class Migration20261123000000_tsig_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "tsig_keys" (
      "id" bigserial primary key,
      "user_id" bigint null constraint "tsig_keys_user_id_foreign" references "users" ("id") on update cascade on delete cascade,
      "name" text not null,
      "algorithm" text not null constraint "tsig_keys_algorithm_check" check ("algorithm" in ('hmac-sha256', 'hmac-sha384', 'hmac-sha512')),
      "secret" bytea not null,
      "created_at" timestamptz not null default now(),
      "revoked_at" timestamptz null);`);
    this.addSql(`create unique index "tsig_keys_active_name_unique" on "tsig_keys" ("name") where "revoked_at" is null;`);
    this.addSql(`create index "tsig_keys_user_id_index" on "tsig_keys" ("user_id");`);
    this.addSql(`alter table "changes" add column "author_tsig_key_id" bigint null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "changes" drop column "author_tsig_key_id";`);
    this.addSql(`drop table "tsig_keys";`);
  }
}
