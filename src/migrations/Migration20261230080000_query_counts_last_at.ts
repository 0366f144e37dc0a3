import { Migration } from '@mikro-orm/migrations';

/**
 * Each count row keeps the last answer's time within its bucket (`last_at`; a rolled-up row the latest of its
 * finer rows'), so that an RRset's counts over a window and its last query are read by one probe of
 * `query_counts_rrset_index` when it was queried since the window began (src/repositories/query-analytics.ts,
 * `rrsetCountsText`), rather than by that probe and one of `query_last_seen` (bench/FINDINGS.md, «One probe per
 * record for the records' counts»). Rows counted before this are null and read as before.
 */
export class Migration20261230080000_query_counts_last_at extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "query_counts" add column "last_at" timestamptz null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "query_counts" drop column "last_at";`);
  }
}
