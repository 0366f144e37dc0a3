import { Migration } from '@mikro-orm/migrations';

/**
 * The audit log (docs/audit-log.md): one
 * row per event, except failed authentications (one row per source address and minute with a count) and
 * refusals (one row per kind, key and minute with a count): the partial unique indexes are what their upserts
 * meet; and each key's first use, recorded once.
 */
export class Migration20261124150100_audit_log extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "audit_events" (
      "id" bigserial primary key,
      "at" timestamptz not null default now(),
      "kind" text not null,
      "actor_key_type" text null constraint "audit_events_actor_key_type_check" check ("actor_key_type" in ('api', 'tsig')),
      "actor_key_id" bigint null,
      "actor_key_name" text null,
      "actor_user_id" bigint null,
      "actor_admin" boolean not null default false,
      "subject" text null,
      "detail" jsonb not null default '{}',
      "source_address" text null,
      "count" integer not null default 1);`);
    this.addSql(`create index "audit_events_at_index" on "audit_events" ("at");`);
    this.addSql(`create index "audit_events_kind_id_index" on "audit_events" ("kind", "id");`);
    this.addSql(
      `create unique index "audit_events_failed_auth_unique" on "audit_events" ("at", "source_address") where "kind" = 'authentication-failed';`,
    );
    // refusals (policy, rate limit, quota) are summarised too: one row per kind, key and minute
    this.addSql(
      `create unique index "audit_events_refusal_unique" on "audit_events" ("kind", "at", "actor_key_type", "actor_key_id") where "kind" in ('policy-refused', 'rate-limited', 'quota-exceeded');`,
    );
    this.addSql(`alter table "api_keys" add column "first_used_at" timestamptz null;`);
    this.addSql(`alter table "tsig_keys" add column "first_used_at" timestamptz null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "tsig_keys" drop column "first_used_at";`);
    this.addSql(`alter table "api_keys" drop column "first_used_at";`);
    this.addSql(`drop table "audit_events";`);
  }
}
