import { Migration } from '@mikro-orm/migrations';

/**
 * Secondary zones (docs/transfers.md): a zone of kind `secondary` is taken by transfer (RFC 5936, RFC 1995) from
 * its primaries, a customer's own servers, instead of being written through the API.
 *
 * - `domains.kind`: `primary` (ours, written through the API) or `secondary`; a plain column others read (the
 *   PowerDNS edge's zone kind).
 * - `domains.serving`: false while a secondary zone has not been transferred yet, and once it expired (RFC 1035
 *   §3.3.13: its primaries unreachable past the SOA's EXPIRE): the primary then answers nothing of it.
 * - `zone_primaries`: where it is taken from, in the order tried, each with the TSIG key of the zone's user that
 *   signs the transfer (null: unsigned); NOTIFY is taken only from these addresses (RFC 1996 §3.10).
 * - `secondary_zone_state`: the refresh timers (RFC 1035 §3.3.13, RFC 1996 §4) and what the last attempt found;
 *   `(next_refresh_at)` serves the worker's claim of the zones due.
 */
export class Migration20261126040100_secondary_zones extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "domains" add column "kind" text not null default 'primary' check ("kind" in ('primary', 'secondary'));`);
    this.addSql(`alter table "domains" add column "serving" boolean not null default true;`);
    this.addSql(`create table "zone_primaries" (
      "id" bigserial primary key,
      "domain_id" bigint not null references "domains" ("id") on delete cascade,
      "position" int not null,
      "address" inet not null,
      "port" int not null default 53 check ("port" between 1 and 65535),
      "tsig_key_id" bigint null references "tsig_keys" ("id") on delete set null,
      constraint "zone_primaries_unique" unique ("domain_id", "position"));`);
    this.addSql(`create table "secondary_zone_state" (
      "domain_id" bigint primary key references "domains" ("id") on delete cascade,
      "state" text not null default 'pending' check ("state" in ('pending', 'in_sync', 'retrying', 'expired')),
      "next_refresh_at" timestamptz not null default now(),
      "lease_until" timestamptz null,
      "last_attempt_at" timestamptz null,
      "last_success_at" timestamptz null,
      "expires_at" timestamptz null,
      "last_error" text null,
      "transfers" int not null default 0);`);
    this.addSql(`create index "secondary_zone_state_due_index" on "secondary_zone_state" ("next_refresh_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table "secondary_zone_state";`);
    this.addSql(`drop table "zone_primaries";`);
    this.addSql(`alter table "domains" drop column "serving";`);
    this.addSql(`alter table "domains" drop column "kind";`);
  }
}
