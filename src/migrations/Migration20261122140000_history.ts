import { Migration } from '@mikro-orm/migrations';

/**
 * Change history: who made each journal row — the API key (its id and, as it was then, its name)
 * and its user; null for the admin key's user and for rows the service writes itself (catalog, zone creation
 * and deletion). The history of a zone is read newest first by `changes_zone_id_index` (zone, id).
 */
export class Migration20261122140000_history extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "changes" add column "author_key_id" bigint null, add column "author_key_name" text null, add column "author_user_id" bigint null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "changes" drop column "author_key_id", drop column "author_key_name", drop column "author_user_id";`);
  }
}
