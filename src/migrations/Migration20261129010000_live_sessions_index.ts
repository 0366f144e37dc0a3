import { Migration } from '@mikro-orm/migrations';

/**
 * The live sessions, for the worker's sweep of those that timed out and were never presented again (they are
 * ended and audited then: docs/audit-log.md): a partial index holds only the sessions not ended, so the sweep
 * reads them and not every session there ever was.
 */
export class Migration20261129010000_live_sessions_index extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "sessions_live_index" on "sessions" ("last_seen_at") where "ended_at" is null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "sessions_live_index";`);
  }
}
