import { Migration } from '@mikro-orm/migrations';

/**
 * The findings a change set's plan answered (docs/changes.md, «Checks on every plan»), kept with the change's
 * journal row: each warning's code, severity, the RRset it is about (owner and type), its RFC and message. The
 * history reads them with the change (GraphQL `ZoneChangeEntry.findings`, REST `GET /api/domain/changes/{zone}`).
 * Null for a change whose plan answered none, and for every change written before this column.
 */
export class Migration20261211110000_change_findings extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "changes" add column "findings" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "changes" drop column if exists "findings";`);
  }
}
