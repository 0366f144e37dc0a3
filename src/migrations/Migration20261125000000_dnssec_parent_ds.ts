import { Migration } from '@mikro-orm/migrations';

/**
 * The parent's DS (docs/dnssec.md): what a signed zone waits for of its parent, and the worker's indexes.
 *
 * - `dnssec_zones.ds_seen_at`: when the parent was last seen serving the zone's DS (checked at
 *   DNSSEC_PARENT_DS_SERVERS, confirmed by hand, or written here when the parent is a Zonekeeper zone); null
 *   while an enabled zone waits for it.
 * - `dnssec_zones.ds_check_due_at`: when the worker next asks the parent's servers (null: nothing to ask), and
 *   `ds_checked_at` / `ds_check`: the last answer, which the status shows.
 * - `dnssec_zones.disable_at`: a zone `disabling` (RFC 8078 §4: DS-delete CDS/CDNSKEY published, still signed)
 *   goes unsigned at this time, once the parent's DS is gone and its TTL has passed; null while it is there.
 * - The key-roll tick's due-zone query (src/repositories/dnssec.ts `zonesWithKeyWork`) reads one index per
 *   branch: keys with an event planned, active keys without one by the time they became active (their lifetime),
 *   and zones whose disable falls due; each partial, so that the many keys and zones with nothing planned are
 *   not in them.
 */
export class Migration20261125000000_dnssec_parent_ds extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "dnssec_zones"
      add column "ds_seen_at" timestamptz null,
      add column "ds_check_due_at" timestamptz null,
      add column "ds_checked_at" timestamptz null,
      add column "ds_check" jsonb null,
      add column "disable_at" timestamptz null;`);
    // the zones signed before: their DS was given to the parent by hand, as the service then asked
    this.addSql(`update "dnssec_zones" set "ds_seen_at" = "enabled_at";`);
    this.addSql(`create index "dnssec_keys_next_event_index" on "dnssec_keys" ("next_event_at") where "next_event_at" is not null;`);
    this.addSql(
      `create index "dnssec_keys_lifetime_index" on "dnssec_keys" ("active_at") where "state" = 'active' and "next_event" is null;`,
    );
    this.addSql(`create index "dnssec_zones_disable_index" on "dnssec_zones" ("disable_at") where "disable_at" is not null;`);
    this.addSql(`create index "dnssec_zones_ds_check_index" on "dnssec_zones" ("ds_check_due_at") where "ds_check_due_at" is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "dnssec_zones_ds_check_index";`);
    this.addSql(`drop index "dnssec_zones_disable_index";`);
    this.addSql(`drop index "dnssec_keys_lifetime_index";`);
    this.addSql(`drop index "dnssec_keys_next_event_index";`);
    this.addSql(`alter table "dnssec_zones" drop column "ds_seen_at", drop column "ds_check_due_at", drop column "ds_checked_at",
      drop column "ds_check", drop column "disable_at";`);
  }
}
