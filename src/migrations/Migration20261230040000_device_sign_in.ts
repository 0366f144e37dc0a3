import { Migration } from '@mikro-orm/migrations';

/**
 * Signing in without a browser (docs/people.md, «Signing in from a terminal»): a device sign-in under way
 * (OAuth 2.0 device authorization, RFC 8628), found by the hash of the device code only the polling client holds,
 * with the provider's own device code, the code the person types, its life and the pace of polling (§3.5); the
 * person once approved, and the session token is handed to the poller once (its hash is the session's). And a
 * key's scopes: `propose` lets a key's write to a zone under review become a change request (docs/powerdns-api.md).
 */
export class Migration20261230040000_device_sign_in extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "device_sign_ins" (
      "id" bigserial primary key,
      "device_code_hash" text not null constraint "device_sign_ins_device_code_hash_unique" unique,
      "method" text not null check ("method" in ('oidc', 'passkey')),
      "user_code" text not null,
      "provider_device_code" text null,
      "interval_seconds" integer not null,
      "expires_at" timestamptz not null,
      "polled_at" timestamptz null,
      "person_id" bigint null references "people" ("id") on delete cascade,
      "denied" boolean not null default false,
      "source_address" text null,
      "user_agent" text null,
      "created_at" timestamptz not null default now());`);
    this.addSql(`create index "device_sign_ins_user_code_index" on "device_sign_ins" ("user_code");`);
    this.addSql(`alter table "api_keys" add column "scopes" text[] not null default '{}';`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "api_keys" drop column "scopes";`);
    this.addSql(`drop table if exists "device_sign_ins";`);
  }
}
