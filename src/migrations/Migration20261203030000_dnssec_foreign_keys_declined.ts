import { Migration } from '@mikro-orm/migrations';

/**
 * The other signer's key rolls followed (docs/dnssec.md «Moving a signed zone in / out»): the worker reads a
 * multi-signer zone's foreign DNSKEYs again from the server they were read from, adding what it now publishes and
 * removing what it no longer does. A key read from a server and then removed by hand (`removeForeignDnskey`) is
 * kept as declined (`removed_at`), so that the next reading does not add it back; it is forgotten once the server
 * stops publishing it, and taken back if someone adds it again. Every reader of the zone's keys passes over
 * declined rows.
 */
export class Migration20261203030000_dnssec_foreign_keys_declined extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "dnssec_foreign_keys" add column "removed_at" timestamptz null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "dnssec_foreign_keys" where "removed_at" is not null;`);
    this.addSql(`alter table "dnssec_foreign_keys" drop column "removed_at";`);
  }
}
