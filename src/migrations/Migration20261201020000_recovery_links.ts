import { Migration } from '@mikro-orm/migrations';

/**
 * Recovery links (docs/people.md, «Recovery»): a member who lost every passkey gets a one-time link, made by
 * someone who manages them, to register a new one. As an invitation's, the token is stored as its SHA-256 only,
 * good until `expires_at` and taken once (`used_at`); the link names the person and the account it was made in
 * (where the session it begins acts), and goes with either.
 */
export class Migration20261201020000_recovery_links extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "recovery_links" (
      "id" bigserial primary key,
      "person_id" bigint not null references "people" ("id") on delete cascade,
      "user_id" bigint not null references "users" ("id") on delete cascade,
      "token_hash" text not null,
      "expires_at" timestamptz not null,
      "created_at" timestamptz not null default now(),
      "used_at" timestamptz null);`);
    this.addSql(`create unique index "recovery_links_token_hash_unique" on "recovery_links" ("token_hash");`);
    this.addSql(`create index "recovery_links_person_id_index" on "recovery_links" ("person_id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table "recovery_links";`);
  }
}
