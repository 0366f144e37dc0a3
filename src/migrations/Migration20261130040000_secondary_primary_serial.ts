import { Migration } from '@mikro-orm/migrations';

/**
 * A secondary zone's primary serial: the serial of the primary's copy it holds (its last transfer). It is the
 * zone's serial until the zone holds an ALIAS: the addresses flattened from it are the service's own change,
 * a serial step of ours (the fleet takes them by IXFR), so the zone's serial runs ahead of the primary's, and
 * the refresh asks the primary from this one (docs/transfers.md, «ALIAS in secondary zones»).
 */
export class Migration20261130040000_secondary_primary_serial extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "secondary_zone_state" add column "primary_serial" bigint null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "secondary_zone_state" drop column "primary_serial";`);
  }
}
