import { Migration } from '@mikro-orm/migrations';

/**
 * The ids of the rows a change deleted, beside the records it journals as removed (`removed_ids[i]` is the
 * id of `removed[i]`; null where the change edited the row in place, which keeps its id: a record replaced, the
 * SOA's serial step). A client's normalised cache evicts a deleted record by its id: GraphQL answers them as
 * `ZoneChangeEntry.removedRecordIds` (docs/graphql.md). Null for every change written before this column and
 * for the journal rows no change of records writes (a zone created or deleted, the catalog).
 */
export class Migration20261229000000_change_removed_ids extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "changes" add column "removed_ids" bigint[] null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "changes" drop column if exists "removed_ids";`);
  }
}
