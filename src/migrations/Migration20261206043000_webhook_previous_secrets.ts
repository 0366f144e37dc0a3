import { Migration } from '@mikro-orm/migrations';

/**
 * A webhook's previous signing secrets, each with its own end (docs/events.md, «Rotating a secret»). One column
 * held one previous secret, so a second rotation within the overlap dropped the first secret at once and a
 * receiver still on it failed. Each rotation now retires the current secret into a row here, signing until its
 * own `until` (the rotation's time, `retired_at`, plus WEBHOOK_SECRET_OVERLAP_HOURS then), whatever rotations
 * follow. Sealed as the current secret is (the key vault, the subscription's id as associated data). A previous
 * secret still in its overlap moves here; the old columns go.
 */
export class Migration20261206043000_webhook_previous_secrets extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "webhook_previous_secrets" (
      "id" bigserial primary key,
      "subscription_id" bigint not null references "webhook_subscriptions" ("id") on delete cascade,
      "secret" bytea not null,
      "retired_at" timestamptz not null default now(),
      "until" timestamptz not null);`);
    this.addSql(`create index "webhook_previous_secrets_subscription_index" on "webhook_previous_secrets" ("subscription_id", "until");`);
    this.addSql(`insert into "webhook_previous_secrets" ("subscription_id", "secret", "retired_at", "until")
      select "id", "previous_secret", now(), "previous_secret_until" from "webhook_subscriptions"
       where "previous_secret" is not null and "previous_secret_until" > now();`);
    this.addSql(`alter table "webhook_subscriptions" drop column "previous_secret", drop column "previous_secret_until";`);
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table "webhook_subscriptions" add column "previous_secret" bytea null, add column "previous_secret_until" timestamptz null;`,
    );
    this.addSql(`update "webhook_subscriptions" s set "previous_secret" = p."secret", "previous_secret_until" = p."until"
      from (select distinct on ("subscription_id") "subscription_id", "secret", "until" from "webhook_previous_secrets"
             order by "subscription_id", "until" desc) p
     where p."subscription_id" = s."id";`);
    this.addSql(`drop table if exists "webhook_previous_secrets";`);
  }
}
