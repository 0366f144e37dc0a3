import { Migration } from '@mikro-orm/migrations';

/**
 * The ALIAS/ANAME schedule kept by the write engine (docs/templates-and-alias.md), so the worker's tick reads
 * only the due rows (`alias_refresh_due_index`), a bounded batch, instead of every ALIAS record and every
 * derived row each second:
 *
 * - a change that inserts an ALIAS or ANAME inserts its schedule row, due now; one that edits its target makes
 *   it due now; one that deletes it (or turns it into another type) makes its row due now, a tombstone the
 *   worker answers by removing the derived rows and then the row. So `alias_refresh.record_id` loses its
 *   foreign key (its ON DELETE CASCADE would take the tombstone away) and the zone's deletion takes the rows
 *   instead (`domain_id` → `domains`, ON DELETE CASCADE).
 * - the rows the per-second scan would have made are made here once: ALIAS/ANAME without a schedule row, and a
 *   tombstone for each ALIAS gone whose derived rows are still there.
 */
export class Migration20261127030000_alias_schedule_at_write extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "alias_refresh" drop constraint "alias_refresh_record_id_foreign";`);
    this.addSql(`delete from "alias_refresh" s where not exists (select 1 from "domains" d where d."id" = s."domain_id");`);
    this.addSql(
      `alter table "alias_refresh" add constraint "alias_refresh_domain_id_foreign" foreign key ("domain_id") references "domains" ("id") on delete cascade;`,
    );
    this.addSql(`insert into "alias_refresh" ("record_id", "domain_id", "target")
      select r."id", r."domain_id", r."rdata" from "records" r where r."type" in ('ALIAS', 'ANAME') on conflict do nothing;`);
    this.addSql(`insert into "alias_refresh" ("record_id", "domain_id", "target")
      select distinct r."derived_from", r."domain_id", '' from "records" r
       where r."derived_from" is not null and not exists (select 1 from "records" a where a."id" = r."derived_from")
      on conflict do nothing;`);
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "alias_refresh" s where not exists (select 1 from "records" r where r."id" = s."record_id");`);
    this.addSql(`alter table "alias_refresh" drop constraint "alias_refresh_domain_id_foreign";`);
    this.addSql(
      `alter table "alias_refresh" add constraint "alias_refresh_record_id_foreign" foreign key ("record_id") references "records" ("id") on delete cascade;`,
    );
  }
}
