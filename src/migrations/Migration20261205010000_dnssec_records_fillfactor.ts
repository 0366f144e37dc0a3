import { Migration } from '@mikro-orm/migrations';

/**
 * The signer's rows are filled to 90 % of a page, leaving room on each page for a row written over in place.
 * A signed write rewrites the predecessor's NSEC/NSEC3 (its next name) and the RRSIGs it replaces over their own
 * rows (repositories/dnssec.ts, `rowsReused`). An update that changes no indexed column can be heap-only
 * (no index entry, the old version pruned on the page) only when the new version fits on the row's page: at
 * the default 100 %, a zone's signing leaves no room, and every such update moved its row to another page and
 * added an entry to each of the table's three indexes. Rows inserted or moved from now on leave the room; rows
 * already stored keep their pages until they are next written.
 */
export class Migration20261205010000_dnssec_records_fillfactor extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "dnssec_records" set (fillfactor = 90);`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "dnssec_records" reset (fillfactor);`);
  }
}
