import { Migration } from '@mikro-orm/migrations';

/**
 * A person's session keeps the Consistency-Token of the person's latest write (docs/deployment.md, «Reading from
 * standbys»): the primary's WAL position after it. A read made with the session is then never answered by a
 * standby that has not replayed that far, in whichever process and browser tab it arrives. Written with each
 * write made with the session, read with the session itself at each request's authentication: no statement
 * more for a read. Null until the session's first write.
 */
export class Migration20261210010000_session_consistency_token extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "sessions" add column "consistency_token" pg_lsn null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "sessions" drop column if exists "consistency_token";`);
  }
}
