import { Migration } from '@mikro-orm/migrations';

/**
 * People and organisations (docs/people.md): a person (one e-mail address) is a member of accounts (the REST
 * interface's users, which own zones) with a role per account; invitations are one-time tokens (stored hashed)
 * with an expiry; sessions are the people's sign-ins (token stored hashed), shared by every process. The
 * journal and the audit log name a person who acted by e-mail (`author_email`, `actor_email`).
 */
export class Migration20261126050000_people extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "people" (
      "id" bigserial primary key,
      "email" text not null,
      "created_at" timestamptz not null default now());`);
    this.addSql(`create unique index "people_email_unique" on "people" (lower("email"));`);
    this.addSql(`create table "memberships" (
      "person_id" bigint not null references "people" ("id") on delete cascade,
      "user_id" bigint not null references "users" ("id") on delete cascade,
      "role" text not null constraint "memberships_role_check" check ("role" in ('owner', 'admin', 'editor', 'viewer')),
      "zones" text[] null,
      "created_at" timestamptz not null default now(),
      primary key ("person_id", "user_id"));`);
    this.addSql(`create index "memberships_user_id_index" on "memberships" ("user_id");`);
    this.addSql(`create table "invitations" (
      "id" bigserial primary key,
      "user_id" bigint not null references "users" ("id") on delete cascade,
      "email" text not null,
      "role" text not null constraint "invitations_role_check" check ("role" in ('owner', 'admin', 'editor', 'viewer')),
      "zones" text[] null,
      "token_hash" text not null,
      "expires_at" timestamptz not null,
      "created_at" timestamptz not null default now(),
      "accepted_at" timestamptz null,
      "accepted_by" bigint null references "people" ("id") on delete set null);`);
    this.addSql(`create unique index "invitations_token_hash_unique" on "invitations" ("token_hash");`);
    this.addSql(`create index "invitations_user_id_index" on "invitations" ("user_id");`);
    this.addSql(`create table "sessions" (
      "id" bigserial primary key,
      "person_id" bigint not null references "people" ("id") on delete cascade,
      "token_hash" text not null,
      "account_id" bigint null references "users" ("id") on delete set null,
      "created_at" timestamptz not null default now(),
      "last_seen_at" timestamptz not null default now(),
      "ended_at" timestamptz null,
      "source_address" text null,
      "user_agent" text null,
      "awaiting_second_factor" boolean not null default false);`);
    this.addSql(`create unique index "sessions_token_hash_unique" on "sessions" ("token_hash");`);
    this.addSql(`create index "sessions_person_id_index" on "sessions" ("person_id");`);
    // a sign-in under way (OpenID Connect): its PKCE verifier, state and nonce (RFC 7636, OIDC Core §3.1.2.1),
    // found by the id a short-lived cookie carries, taken once at the callback
    this.addSql(`create table "sign_in_flows" (
      "id_hash" text primary key,
      "code_verifier" text not null,
      "state" text not null,
      "nonce" text not null,
      "redirect_uri" text not null,
      "created_at" timestamptz not null default now());`);
    // passkeys (WebAuthn Level 3): a person's credentials, and the one-time challenges of ceremonies under way
    this.addSql(`create table "passkeys" (
      "id" bigserial primary key,
      "person_id" bigint not null references "people" ("id") on delete cascade,
      "credential_id" text not null,
      "public_key" bytea not null,
      "counter" bigint not null default 0,
      "transports" text[] null,
      "created_at" timestamptz not null default now(),
      "last_used_at" timestamptz null);`);
    this.addSql(`create unique index "passkeys_credential_id_unique" on "passkeys" ("credential_id");`);
    this.addSql(`create index "passkeys_person_id_index" on "passkeys" ("person_id");`);
    this.addSql(`create table "webauthn_challenges" (
      "id_hash" text primary key,
      "challenge" text not null,
      "person_id" bigint null references "people" ("id") on delete cascade,
      "created_at" timestamptz not null default now());`);
    this.addSql(`alter table "changes" add column "author_email" text null;`);
    this.addSql(`alter table "audit_events" add column "actor_email" text null;`);
    this.addSql(`alter table "audit_events" drop constraint "audit_events_actor_key_type_check";`);
    this.addSql(
      `alter table "audit_events" add constraint "audit_events_actor_key_type_check" check ("actor_key_type" in ('api', 'tsig', 'session'));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "audit_events" where "actor_key_type" = 'session';`);
    this.addSql(`alter table "audit_events" drop constraint "audit_events_actor_key_type_check";`);
    this.addSql(
      `alter table "audit_events" add constraint "audit_events_actor_key_type_check" check ("actor_key_type" in ('api', 'tsig'));`,
    );
    this.addSql(`alter table "audit_events" drop column "actor_email";`);
    this.addSql(`alter table "changes" drop column "author_email";`);
    this.addSql(`drop table "webauthn_challenges";`);
    this.addSql(`drop table "passkeys";`);
    this.addSql(`drop table "sign_in_flows";`);
    this.addSql(`drop table "sessions";`);
    this.addSql(`drop table "invitations";`);
    this.addSql(`drop table "memberships";`);
    this.addSql(`drop table "people";`);
  }
}
