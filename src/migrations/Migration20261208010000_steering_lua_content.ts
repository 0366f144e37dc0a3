import { Migration } from '@mikro-orm/migrations';

/**
 * A steered RRset written through the PowerDNS API as an octoDNS dynamic record (docs/steering.md) keeps the
 * `LUA` record's content exactly as it was written, so that the API reads it back byte for byte and the next
 * `octodns-sync` plans no change; the pools and checks are steering's own, decoded from it. Null for a steered
 * RRset written any other way.
 */
export class Migration20261208010000_steering_lua_content extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "steered_rrsets" add column "lua_content" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "steered_rrsets" drop column if exists "lua_content";`);
  }
}
