import { Migration } from '@mikro-orm/migrations';

/**
 * Multi-signer DNSSEC (RFC 8901 §2.1.2, model 2; docs/dnssec.md «Moving a signed zone in / out»): the DNSKEYs of
 * the zone's other signer, published in our DNSKEY RRset beside our own keys and signed by our KSK, so that a
 * resolver that got an answer from either provider validates it with the DNSKEY RRset of either. Public keys
 * only: they never sign here. `source`: given by value, or read from the other signer's server `fetched_from`.
 * A zone's key appears once (the unique index), and goes with its zone.
 */
export class Migration20261202040000_dnssec_foreign_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "dnssec_foreign_keys" (
      "id" bigserial primary key,
      "domain_id" bigint not null references "domains" ("id") on delete cascade,
      "flags" int not null check ("flags" in (256, 257)),
      "algorithm" smallint not null,
      "key_tag" int not null,
      "dnskey" text not null,
      "source" text not null check ("source" in ('value', 'fetched')),
      "fetched_from" text null,
      "created_at" timestamptz not null default now()
    );`);
    this.addSql(`create unique index "dnssec_foreign_keys_domain_dnskey_unique" on "dnssec_foreign_keys" ("domain_id", "dnskey");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "dnssec_foreign_keys";`);
  }
}
