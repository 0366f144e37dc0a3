import { Migration } from '@mikro-orm/migrations';

/**
 * Scale (issue 17): the journal lookups of IXFR (RFC 1995) by index, whatever the number of changes kept.
 *
 * - `changes_ixfr_start_index`: the change that left a client's serial (`journalFrom`: zone, domain,
 *   serial_before), partial on the rows IXFR can start from;
 * - `changes_zone_id_index`: the changes of one zone in id order, from that row on (IXFR), and the last
 *   serial a zone name had (`lastJournalSerial`), without reading the zone's whole journal.
 */
export class Migration20261122160000_scale extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create index "changes_ixfr_start_index" on "changes" ("zone", "domain_id", "serial_before") where "kind" = 'zone-changed';`);
    this.addSql(`create index "changes_zone_id_index" on "changes" ("zone", "id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "changes_zone_id_index";`);
    this.addSql(`drop index "changes_ixfr_start_index";`);
  }

}
