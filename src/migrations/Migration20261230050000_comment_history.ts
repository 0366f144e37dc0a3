import { Migration } from '@mikro-orm/migrations';

/**
 * RRset comments in the change history (docs/changes.md, «Comments»): the comments a change set, a record's write
 * or an import changed, beside the records it journals (`comments`: `[{owner, type, before, after}]`, each the
 * RRset's comment text before and after; null when it changed none). A change of comments alone changes no DNS
 * data, so it steps no serial: it is a journal row of its own, of kind `comment-changed`, whose serial before and
 * after are the zone's, written as published (no NOTIFY: RFC 1996 has nothing to tell the secondaries) and read by
 * no IXFR (the IXFR reader takes `zone-changed` and `zone-signed` rows only).
 */
export class Migration20261230050000_comment_history extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "changes" add column "comments" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "changes" where "kind" = 'comment-changed';`);
    this.addSql(`alter table "changes" drop column if exists "comments";`);
  }
}
