import { Migration } from '@mikro-orm/migrations';

/**
 * Scale (bench/RESULTS-scale.md): the journal lookups of IXFR (RFC 1995) by index, whatever the number of changes kept.
 *
 * - `changes_ixfr_start_index`: the change that left a client's serial (`journalFrom`: zone, domain,
 *   serial_before), partial on the rows IXFR can start from;
 * - `changes_zone_id_index`: the changes of one zone in id order, from that row on (IXFR), and the last
 *   serial a zone name had (`lastJournalSerial`), without reading the zone's whole journal;
 * - `domains.catalog_serial`: the catalog serial at which a zone joined the catalog zone (RFC 9432), null
 *   while it waits to join (src/repositories/catalog.ts). A create no longer holds the catalog's lock until
 *   its commit; the zone joins after, in a batch. The zones already there are members at today's serial;
 * - `records_domain_reverse_owner_index`: whether a name has descendants in a zone (an empty non-terminal,
 *   RFC 4592 §2.2.2, asked by every NXDOMAIN/NODATA answer) as a range of reversed owner names, in byte order,
 *   instead of a scan of the zone's records: one lookup in a zone of a million records;
 * - the journal's trigger no longer wakes the worker for `zone-created` rows: a transaction that calls
 *   pg_notify holds a database-wide lock from its commit's start to its end, WAL flush included, so every
 *   create committed one after another. The catalog change that admits the zone right after notifies, and
 *   the worker claims every unpublished row when it wakes (and polls every second regardless).
 */
export class Migration20261122160000_scale extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index "changes_ixfr_start_index" on "changes" ("zone", "domain_id", "serial_before") where "kind" = 'zone-changed';`,
    );
    this.addSql(`create index "changes_zone_id_index" on "changes" ("zone", "id");`);
    this.addSql(`alter table "domains" add column "catalog_serial" bigint null;`);
    this.addSql(`update "domains" set "catalog_serial" = coalesce((select max("serial") from "catalog_state"), 0);`);
    this.addSql(`create index "domains_catalog_waiting_index" on "domains" ("id") where "catalog_serial" is null;`);
    this.addSql(`create index "records_domain_reverse_owner_index" on "records" ("domain_id", (reverse("owner")) collate "C");`);
    this.addSql(
      `create or replace function "zonekeeper_changes_notify"() returns trigger language plpgsql as $fn$ begin if NEW."kind" <> 'zone-created' then perform pg_notify('zonekeeper_changes', NEW."zone"); end if; return null; end $fn$;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `create or replace function "zonekeeper_changes_notify"() returns trigger language plpgsql as $fn$ begin perform pg_notify('zonekeeper_changes', NEW."zone"); return null; end $fn$;`,
    );
    this.addSql(`drop index "records_domain_reverse_owner_index";`);
    this.addSql(`drop index "domains_catalog_waiting_index";`);
    this.addSql(`alter table "domains" drop column "catalog_serial";`);
    this.addSql(`drop index "changes_zone_id_index";`);
    this.addSql(`drop index "changes_ixfr_start_index";`);
  }
}
