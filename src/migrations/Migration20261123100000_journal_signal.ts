import { Migration } from '@mikro-orm/migrations';

/**
 * The journal's readers are woken by the process that wrote it, after its commit and at most once per
 * 10 ms (src/db/journal-signal.ts), no longer by a trigger that called pg_notify for every journal row: a
 * notifying transaction holds a cluster-wide lock through its commit's WAL flush, so concurrent writes
 * committed one after another (docs/performance.md, «The journal's readers»).
 */
export class Migration20261123100000_journal_signal extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop trigger if exists "changes_notify_trigger" on "changes";`);
    this.addSql(`drop function if exists "zonekeeper_changes_notify"();`);
  }

  override async down(): Promise<void> {
    this.addSql(
      `create or replace function "zonekeeper_changes_notify"() returns trigger language plpgsql as $fn$ begin if NEW."kind" <> 'zone-created' then perform pg_notify('zonekeeper_changes', NEW."zone"); end if; return null; end $fn$;`,
    );
    this.addSql(
      `create trigger "changes_notify_trigger" after insert on "changes" for each row execute function "zonekeeper_changes_notify"();`,
    );
  }
}
