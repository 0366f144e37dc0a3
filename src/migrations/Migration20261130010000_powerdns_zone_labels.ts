import { Migration } from '@mikro-orm/migrations';

/**
 * What the PowerDNS API was told of a zone and reads back as told (docs/powerdns-api.md): its `account` text and
 * its `kind` (`Native` or `Master`). Labels only: the owner is the zone's user, and every zone written here is a
 * primary that NOTIFYs its secondaries whichever kind it shows; null where the zone was not made or set there.
 */
export class Migration20261130010000_powerdns_zone_labels extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "domains" add column "api_account" text null, add column "api_kind" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "domains" drop column if exists "api_account", drop column if exists "api_kind";`);
  }
}
