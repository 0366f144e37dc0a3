import { Migration } from '@mikro-orm/migrations';

/**
 * Events out (docs/events.md): the journal's second reader.
 *
 * - `events`: one row per thing that happened (a zone created, changed, deleted, propagated, a transfer that
 *   failed, a key step, a health finding), written in the transaction of what it describes. `xid` is that
 *   transaction's id (xid8, never wrapping): the feed's order is `(xid, id)` and it serves only rows of
 *   transactions older than every one still running (repositories/events.ts says why). `user_id` is the zone's
 *   user when it was written (the policies' scope; kept after the zone is gone), `change_id` the journal row a
 *   `zone.changed` event stands for (its records are read from there, not copied).
 * - `webhook_subscriptions`: an endpoint of a user (or of the operator: `user_id` null), the types and zones it
 *   asked for, its creator's read rules, and its signing secrets sealed at rest (services/events/webhook-secrets.ts).
 * - `webhook_deliveries`: one row per (subscription, event) to deliver, queued per zone (`zone_key`) in the
 *   feed's order (`xid`, `event_id`); `webhook_fanout` is where the fan-out reached in the feed.
 * - `domains.propagated_serial`: the last serial a `zone.propagated` event announced, so that it is said once.
 */
export class Migration20261201000000_events extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "events" (
      "id" bigserial primary key,
      "xid" xid8 not null default pg_current_xact_id(),
      "type" text not null,
      "domain_id" bigint null,
      "zone" text null,
      "user_id" bigint null,
      "change_id" bigint null,
      "data" jsonb not null default '{}'::jsonb,
      "created_at" timestamptz not null default now());`);
    this.addSql(`create index "events_feed_index" on "events" ("xid", "id");`);
    this.addSql(`create index "events_user_feed_index" on "events" ("user_id", "xid", "id");`);
    this.addSql(`create index "events_created_index" on "events" ("created_at");`);
    this.addSql(`alter table "domains" add column "propagated_serial" bigint null;`);

    this.addSql(`create table "webhook_subscriptions" (
      "id" bigserial primary key,
      "user_id" bigint null references "users" ("id") on delete cascade,
      "created_by_key_id" bigint null,
      "read_rules" jsonb null,
      "url" text not null,
      "event_types" text[] null,
      "zones" text[] null,
      "secret" bytea not null,
      "previous_secret" bytea null,
      "previous_secret_until" timestamptz null,
      "enabled" boolean not null default true,
      "disabled_reason" text null,
      "failing_since" timestamptz null,
      "created_at" timestamptz not null default now());`);
    this.addSql(`create index "webhook_subscriptions_user_index" on "webhook_subscriptions" ("user_id");`);

    this.addSql(`create table "webhook_deliveries" (
      "id" bigserial primary key,
      "subscription_id" bigint not null references "webhook_subscriptions" ("id") on delete cascade,
      "event_id" bigint not null references "events" ("id") on delete cascade,
      "xid" xid8 not null,
      "zone_key" text not null,
      "status" text not null default 'pending',
      "attempts" int not null default 0,
      "first_attempt_at" timestamptz null,
      "next_attempt_at" timestamptz not null default now(),
      "lease_until" timestamptz null,
      "response_code" int null,
      "last_error" text null,
      "delivered_at" timestamptz null,
      "created_at" timestamptz not null default now(),
      constraint "webhook_deliveries_status_check" check ("status" in ('pending', 'delivered', 'failed')),
      constraint "webhook_deliveries_unique" unique ("subscription_id", "event_id"));`);
    this.addSql(
      `create index "webhook_deliveries_queue_index" on "webhook_deliveries" ("subscription_id", "zone_key", "xid", "event_id") where "status" = 'pending';`,
    );
    this.addSql(`create index "webhook_deliveries_event_index" on "webhook_deliveries" ("event_id");`);

    this.addSql(`create table "webhook_fanout" ("id" int primary key, "xid" xid8 not null, "event_id" bigint not null);`);
    this.addSql(`insert into "webhook_fanout" ("id", "xid", "event_id") values (1, '0'::xid8, 0);`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "webhook_fanout";`);
    this.addSql(`drop table if exists "webhook_deliveries";`);
    this.addSql(`drop table if exists "webhook_subscriptions";`);
    this.addSql(`alter table "domains" drop column if exists "propagated_serial";`);
    this.addSql(`drop table if exists "events";`);
  }
}
