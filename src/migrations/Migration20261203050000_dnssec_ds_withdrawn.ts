import { Migration } from '@mikro-orm/migrations';

/**
 * Moving a signed multi-signer zone out (docs/dnssec.md «Moving a signed zone in / out»): the zone withdraws its
 * own DS while it still signs (`withdrawDnssecDs`). From then its CDS/CDNSKEY name the other signer's KSKs alone,
 * and a parent held here holds their DS alone; `restoreDnssecDs` clears it. Set only while the zone holds a
 * foreign KSK (removing the last one clears it).
 */
export class Migration20261203050000_dnssec_ds_withdrawn extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "dnssec_zones" add column "ds_withdrawn_at" timestamptz null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "dnssec_zones" drop column "ds_withdrawn_at";`);
  }
}
