import { Migration } from '@mikro-orm/migrations';

/**
 * Rate limits and quotas (README "Rate limits and quotas").
 *
 * - What the admin sets per user (`users.rate_per_second`, `rate_burst`, `max_zones`, `max_records_per_zone`)
 *   and per API key (`api_keys.rate_per_second`, `rate_burst`); null means the setting's default, so a changed
 *   default reaches every user who has no value of their own.
 * - Two counters the quotas are checked against in the statement that writes: a user's zones
 *   (`users.zone_count`, raised in the statement that inserts a zone, on the condition that it stays within
 *   the quota: the row update serialises concurrent creates of one user) and a zone's records
 *   (`domains.record_count`, changed in the serial compare-and-set that every record write is). Counting rows at
 *   each write would read a whole zone per change; the counters are maintained by the only statements that
 *   insert or delete zones and records (src/repositories/zone-writes.ts), and filled here from the rows.
 */
export class Migration20261124150000_limits_and_quotas extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "users" add column "rate_per_second" int null, add column "rate_burst" int null, add column "max_zones" int null, add column "max_records_per_zone" int null, add column "zone_count" int not null default 0;`,
    );
    this.addSql(`alter table "api_keys" add column "rate_per_second" int null, add column "rate_burst" int null;`);
    this.addSql(`alter table "domains" add column "record_count" int not null default 0;`);
    this.addSql(`update "users" u set "zone_count" = (select count(*) from "domains" d where d."user_id" = u."id");`);
    this.addSql(`update "domains" d set "record_count" = (select count(*) from "records" r where r."domain_id" = d."id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "domains" drop column "record_count";`);
    this.addSql(`alter table "api_keys" drop column "rate_per_second", drop column "rate_burst";`);
    this.addSql(
      `alter table "users" drop column "rate_per_second", drop column "rate_burst", drop column "max_zones", drop column "max_records_per_zone", drop column "zone_count";`,
    );
  }
}
