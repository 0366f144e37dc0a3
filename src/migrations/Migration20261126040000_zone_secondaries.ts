import { Migration } from '@mikro-orm/migrations';

/**
 * A zone's extra secondaries (docs/transfers.md): a customer's own servers, besides the fleet's SECONDARIES, that
 * are sent a NOTIFY on each change (RFC 1996) and may transfer the zone (RFC 5936, RFC 1995) from their address,
 * signed with the TSIG key named here. The key is one of the zone's user: it goes with its user, and a revoked
 * key stops both the NOTIFY's signature and the transfers (the look-ups join on `revoked_at is null`).
 * `(domain_id, address, port)` is unique and serves the primary's look-up of one zone's entries.
 */
export class Migration20261126040000_zone_secondaries extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "zone_secondaries" (
      "id" bigserial primary key,
      "domain_id" bigint not null references "domains" ("id") on delete cascade,
      "address" inet not null,
      "port" int not null default 53 check ("port" between 1 and 65535),
      "tsig_key_id" bigint not null references "tsig_keys" ("id") on delete cascade,
      "created_at" timestamptz not null default now(),
      constraint "zone_secondaries_unique" unique ("domain_id", "address", "port"));`);
    this.addSql(`create index "zone_secondaries_tsig_key_index" on "zone_secondaries" ("tsig_key_id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table "zone_secondaries";`);
  }
}
