import { Migration } from '@mikro-orm/migrations';

/**
 * Steering's vantages (docs/steering.md, «Vantages and the quorum»): every check is probed from every live
 * vantage (a prober process names its own, STEERING_VANTAGE), and a check goes down or up when the share of the
 * sound vantages voting so reaches the quorum.
 *
 * - `steering_vantages`: each vantage that has probed, when it was last seen, and whether it is isolated (its
 *   votes not counted: it fails what the others pass, or its canaries fail), why and since when, and whether its
 *   own probes are in a panic freeze (which holds while it decides alone).
 * - `steering_votes`: one row a probed check and vantage: the vantage's own schedule (`next_check_at`, claimed
 *   FOR UPDATE SKIP LOCKED as the check's was, so that each vantage probes each check once per interval however
 *   many of its processes run), its runs of passes and failures (fall and rise count per vantage), and its last
 *   probe. External checks have none: they are reported, not probed.
 * - `steering_checks.held`: why a check's state is held where it is although its votes would move it (`panic`:
 *   the one vantage's panic freeze; `no-sound-vantage`: every vantage that probed it is isolated), and since
 *   when: shown on the member's row, never as up.
 */
export class Migration20261230000000_steering_vantages extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "steering_vantages" (
      "name" text primary key,
      "seen_at" timestamptz not null default now(),
      "isolated" boolean not null default false,
      "isolated_reason" text null,
      "isolated_since" timestamptz null,
      "panic" boolean not null default false
    );`);
    this.addSql(`create table "steering_votes" (
      "check_id" bigint not null constraint "steering_votes_check_id_foreign" references "steering_checks" ("id") on delete cascade,
      "vantage" text not null constraint "steering_votes_vantage_foreign" references "steering_vantages" ("name") on delete cascade,
      "next_check_at" timestamptz not null default now(),
      "passes" integer not null default 0,
      "failures" integer not null default 0,
      "last_ok" boolean null,
      "last_error" text null,
      "latency_ms" integer null,
      "checked_at" timestamptz null,
      primary key ("check_id", "vantage")
    );`);
    // a vantage's claim reads its own due rows in schedule order
    this.addSql(`create index "steering_votes_due_index" on "steering_votes" ("vantage", "next_check_at");`);
    this.addSql(`alter table "steering_checks" add column "held" text null check ("held" in ('panic', 'no-sound-vantage')),
      add column "held_since" timestamptz null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "steering_checks" drop column if exists "held", drop column if exists "held_since";`);
    this.addSql(`drop table if exists "steering_votes";`);
    this.addSql(`drop table if exists "steering_vantages";`);
  }
}
