import { Migration } from '@mikro-orm/migrations';

/**
 * A view's history of a zone (docs/views.md, «History per view») is read from its `view.changed` events, newest
 * first by zone: an index of those alone, as the steered RRsets' recent changes have for theirs.
 */
export class Migration20261222000000_view_changed_index extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "events_view_changed_index" on "events" ("domain_id", "id") where "type" = 'view.changed';`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "events_view_changed_index";`);
  }
}
