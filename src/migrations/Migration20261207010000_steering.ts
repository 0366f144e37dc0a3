import { Migration } from '@mikro-orm/migrations';

/**
 * Steering (docs/steering.md): health-checked pools decided in the primary and published as ordinary records.
 *
 * - `steering_checks`: a zone's health checks (HTTP, HTTPS, TCP) and their state, kept here so that a restart, a
 *   database failover or a second process changes no served answer by itself: the damped `status` and `since`,
 *   the last probe (`last_ok`, `last_error`, `latency_ms`, `checked_at`), the runs of passes and failures that
 *   fall/rise count, when the current run of raw results began (`stable_since`), the recent `transitions` that
 *   flap damping counts, and `pinned` (a flapping check held down until it is stable). `next_check_at` is the
 *   schedule and the lease: a prober claims due rows FOR UPDATE SKIP LOCKED and moves it one interval on in the
 *   same statement, so a check is probed once per interval however many processes run.
 * - `steered_rrsets`: an A, AAAA or CNAME RRset of a zone whose records the service decides: `pools` in fallback
 *   order (jsonb: each a `min_healthy` and its members, each a value, a check, an admin status and a weight),
 *   `max_answers`, `backup` values and `all_down` (`backup` or `empty`); `served` is what was last written.
 *   The RRset at (owner, type) is the steering's: the served rows are written through the write engine.
 */
export class Migration20261207010000_steering extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "steering_checks" (
      "id" bigserial primary key,
      "domain_id" bigint not null constraint "steering_checks_domain_id_foreign" references "domains" ("id") on delete cascade,
      "name" text not null,
      "protocol" text not null check ("protocol" in ('http', 'https', 'tcp')),
      "address" text not null,
      "port" integer not null check ("port" between 1 and 65535),
      "host" text null,
      "path" text not null default '/',
      "status_min" integer not null default 200,
      "status_max" integer not null default 399,
      "body_contains" text null,
      "verify_tls" boolean not null default false,
      "interval_seconds" integer null check ("interval_seconds" between 1 and 300),
      "status" text not null default 'unknown' check ("status" in ('unknown', 'up', 'down')),
      "since" timestamptz not null default now(),
      "pinned" boolean not null default false,
      "last_ok" boolean null,
      "last_error" text null,
      "latency_ms" integer null,
      "checked_at" timestamptz null,
      "passes" integer not null default 0,
      "failures" integer not null default 0,
      "stable_since" timestamptz null,
      "transitions" timestamptz[] not null default '{}',
      "next_check_at" timestamptz not null default now(),
      "created_at" timestamptz not null default now(),
      constraint "steering_checks_name_unique" unique ("domain_id", "name"));`);
    this.addSql(`create index "steering_checks_due_index" on "steering_checks" ("next_check_at");`);
    this.addSql(`create table "steered_rrsets" (
      "id" bigserial primary key,
      "domain_id" bigint not null constraint "steered_rrsets_domain_id_foreign" references "domains" ("id") on delete cascade,
      "owner" text not null,
      "type" text not null check ("type" in ('A', 'AAAA', 'CNAME')),
      "ttl" integer not null,
      "pools" jsonb not null,
      "max_answers" integer not null default 8 check ("max_answers" between 1 and 64),
      "backup" jsonb not null default '[]',
      "all_down" text not null default 'backup' check ("all_down" in ('backup', 'empty')),
      "served" jsonb not null default '[]',
      "created_at" timestamptz not null default now(),
      constraint "steered_rrsets_owner_type_unique" unique ("domain_id", "owner", "type"));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "steered_rrsets";`);
    this.addSql(`drop table if exists "steering_checks";`);
  }
}
