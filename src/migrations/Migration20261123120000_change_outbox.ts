import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox apart from the journal (issue 15): a journal row not yet published is a row of `change_outbox`,
 * written by the `changes` insert trigger in the same transaction, and the worker's claim deletes it. Before,
 * the claim updated `changes.published_at`; that column is in a partial index's predicate, so no update was HOT:
 * each one copied the row (its jsonb record sets with it) and added an entry to each of the journal's four
 * other indexes, about 27 µs per write, and left a dead journal row to vacuum. Deleting a one-column row
 * from a table that stays small costs about 2 µs. Journal rows are now written once and never updated.
 */
export class Migration20261123120000_change_outbox extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "change_outbox" ("change_id" bigint not null primary key);`);
    this.addSql(`insert into "change_outbox" ("change_id") select "id" from "changes" where "published_at" is null;`);
    this.addSql(`create or replace function "zonekeeper_changes_notify"() returns trigger language plpgsql as $fn$
      begin
        insert into "change_outbox" ("change_id") values (NEW."id");
        if NEW."kind" <> 'zone-created' then perform pg_notify('zonekeeper_changes', NEW."zone"); end if;
        return null;
      end $fn$;`);
    this.addSql(`drop index "changes_unpublished_index";`);
    this.addSql(`alter table "changes" drop column "published_at";`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "changes" add column "published_at" timestamptz null;`);
    this.addSql(`update "changes" set "published_at" = now() where "id" not in (select "change_id" from "change_outbox");`);
    this.addSql(`create index "changes_unpublished_index" on "changes" ("id") where "published_at" is null;`);
    this.addSql(`create or replace function "zonekeeper_changes_notify"() returns trigger language plpgsql as $fn$ begin if NEW."kind" <> 'zone-created' then perform pg_notify('zonekeeper_changes', NEW."zone"); end if; return null; end $fn$;`);
    this.addSql(`drop table "change_outbox";`);
  }
}
