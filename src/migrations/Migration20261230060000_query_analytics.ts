import { Migration } from '@mikro-orm/migrations';

/**
 * Query analytics (docs/analytics.md): what the secondaries answered, counted from their dnstap per zone, owner,
 * type, RCODE, secondary and minute, rolled up to hours and days (`resolution`: a bucket's seconds); each RRset's
 * last query; and the coverage, per secondary and bucket: how long a sender was connected, the frames it sent and
 * what of them could not be counted, so that a gap reads as a gap and not as zero. `owner` is relative to the
 * zone (`@` the apex), '' the owners beyond ANALYTICS_NAMES_PER_MINUTE.
 */
export class Migration20261230060000_query_analytics extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "query_counts" (
      "zone_id" bigint not null references "domains" ("id") on delete cascade,
      "resolution" integer not null check ("resolution" in (60, 3600, 86400)),
      "bucket" timestamptz not null,
      "owner" text not null,
      "type" text not null,
      "rcode" smallint not null,
      "secondary" text not null,
      "count" bigint not null,
      constraint "query_counts_pkey" primary key ("zone_id", "resolution", "bucket", "owner", "type", "rcode", "secondary"));`);
    // the rollups and the retention read a resolution's buckets across every zone
    this.addSql(`create index "query_counts_resolution_bucket_index" on "query_counts" ("resolution", "bucket");`);
    this.addSql(`create index "query_counts_rrset_index" on "query_counts" ("zone_id", "owner", "type", "bucket");`);
    this.addSql(`create table "query_last_seen" (
      "zone_id" bigint not null references "domains" ("id") on delete cascade,
      "owner" text not null,
      "type" text not null,
      "at" timestamptz not null,
      constraint "query_last_seen_pkey" primary key ("zone_id", "owner", "type"));`);
    this.addSql(`create table "query_coverage" (
      "secondary" text not null,
      "resolution" integer not null check ("resolution" in (60, 3600, 86400)),
      "bucket" timestamptz not null,
      "covered_ms" bigint not null default 0,
      "frames" bigint not null default 0,
      "answers" bigint not null default 0,
      "unmatched" bigint not null default 0,
      "malformed" bigint not null default 0,
      "dropped" bigint not null default 0,
      constraint "query_coverage_pkey" primary key ("secondary", "resolution", "bucket"));`);
    this.addSql(`create index "query_coverage_resolution_bucket_index" on "query_coverage" ("resolution", "bucket");`);
    this.addSql(`create table "query_secondaries" (
      "name" text primary key,
      "first_seen" timestamptz not null,
      "last_seen" timestamptz not null);`);
    this.addSql(`create table "query_rollups" ("resolution" integer primary key, "through" timestamptz not null);`);
  }

  override async down(): Promise<void> {
    for (const table of ['query_rollups', 'query_secondaries', 'query_coverage', 'query_last_seen', 'query_counts'])
      this.addSql(`drop table if exists "${table}";`);
  }
}
