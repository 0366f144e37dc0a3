import { Migration } from '@mikro-orm/migrations';

/**
 * DNSSEC (docs/dnssec.md): a zone's signing policy, its keys and the records the signer adds.
 *
 * - `dnssec_zones`: one row per signed zone: its denial of existence (NSEC or NSEC3 with RFC 9276's advice),
 *   its state (`signed`, or `disabling` while the RFC 8078 DS-delete CDS/CDNSKEY wait for the parent), and
 *   the time its earliest signature falls due for refresh (the worker's index).
 * - `dnssec_keys`: the keys, private part sealed (AES-256-GCM under the key-encryption key); RFC 7583 states
 *   with the time of each step.
 * - `dnssec_records`: DNSKEY, CDS, CDNSKEY, RRSIG, NSEC, NSEC3, NSEC3PARAM, beside `records` so that no user
 *   list, count, quota or ETag ever sees one. `chain_key` orders the denial chain (RFC 4034 §6.1 canonical
 *   order for NSEC, the hash for NSEC3): one index look-up finds a chain neighbour. `expires_at` is an RRSIG's
 *   expiration, so the refresh finds the signatures falling due without reading the zone.
 * - `changes.signer_removed` / `signer_added`: the signer's part of a journal row, so an IXFR carries the
 *   signatures of a change in the same serial step while the history shows only the user's records. A step
 *   that changes only signatures is a row of kind `zone-signed`.
 */
export class Migration20261124100000_dnssec extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "dnssec_zones" (
      "domain_id" bigint primary key references "domains" ("id") on delete cascade,
      "state" text not null default 'signed' check ("state" in ('signed', 'disabling')),
      "denial" text not null check ("denial" in ('nsec', 'nsec3')),
      "nsec3_iterations" int not null default 0,
      "nsec3_salt" bytea not null default ''::bytea,
      "nsec3_opt_out" boolean not null default false,
      "enabled_at" timestamptz not null default now(),
      "refresh_due_at" timestamptz not null,
      "refreshed_at" timestamptz null);`);
    this.addSql(`create index "dnssec_zones_refresh_due_index" on "dnssec_zones" ("refresh_due_at");`);
    this.addSql(`create table "dnssec_keys" (
      "id" bigserial primary key,
      "domain_id" bigint not null references "domains" ("id") on delete cascade,
      "role" text not null check ("role" in ('KSK', 'ZSK', 'CSK')),
      "algorithm" smallint not null,
      "key_tag" int not null,
      "dnskey" text not null,
      "sealed_private_key" bytea not null,
      "state" text not null check ("state" in ('generated', 'published', 'ready', 'active', 'retired', 'removed')),
      "created_at" timestamptz not null default now(),
      "published_at" timestamptz null,
      "ready_at" timestamptz null,
      "active_at" timestamptz null,
      "retired_at" timestamptz null,
      "removed_at" timestamptz null,
      "next_event" text null,
      "next_event_at" timestamptz null);`);
    this.addSql(`create index "dnssec_keys_domain_index" on "dnssec_keys" ("domain_id");`);
    this.addSql(`create table "dnssec_records" (
      "id" bigserial primary key,
      "domain_id" bigint not null references "domains" ("id") on delete cascade,
      "owner" text not null,
      "type" text not null,
      "rdata" text not null,
      "ttl" int not null,
      "chain_key" bytea null,
      "expires_at" timestamptz null);`);
    this.addSql(`create index "dnssec_records_domain_owner_index" on "dnssec_records" ("domain_id", "owner");`);
    this.addSql(`create index "dnssec_records_chain_index" on "dnssec_records" ("domain_id", "chain_key") where "chain_key" is not null;`);
    this.addSql(
      `create index "dnssec_records_expiry_index" on "dnssec_records" ("domain_id", "expires_at") where "expires_at" is not null;`,
    );
    this.addSql(`alter table "changes" add column "signer_removed" jsonb null, add column "signer_added" jsonb null;`);
    // IXFR walks signature-only steps as it walks user changes
    this.addSql(`drop index if exists "changes_ixfr_start_index";`);
    this.addSql(
      `create index "changes_ixfr_start_index" on "changes" ("zone", "domain_id", "serial_before") where "kind" in ('zone-changed', 'zone-signed');`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "changes_ixfr_start_index";`);
    this.addSql(
      `create index "changes_ixfr_start_index" on "changes" ("zone", "domain_id", "serial_before") where "kind" = 'zone-changed';`,
    );
    this.addSql(`alter table "changes" drop column "signer_removed", drop column "signer_added";`);
    this.addSql(`drop table "dnssec_records";`);
    this.addSql(`drop table "dnssec_keys";`);
    this.addSql(`drop table "dnssec_zones";`);
  }
}
