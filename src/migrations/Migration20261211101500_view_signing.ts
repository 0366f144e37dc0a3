import { Migration } from '@mikro-orm/migrations';

/**
 * A signed zone's views are signed with the zone's keys (docs/views.md, «DNSSEC»). A view's zone is the signed base
 * zone with the few signer records that differ in it: `signer_records` holds the view's own (the RRSIGs of its
 * RRsets and of its SOA, which carries its serial, and the NSEC/NSEC3 records whose chain differs in it, with
 * their RRSIGs), and `signer_hidden` the ids of the base's signer records (`dnssec_records`) that the view's zone
 * leaves out. Both are written again in the transaction of every step of the view's serial, so a serial always
 * names one stored zone, whichever process serves it. An unsigned zone's views keep them empty.
 *
 * `domains.has_view_zones` says that some view overlaid the zone (it has a `view_serials` row, or had one): a
 * signed zone's change made without the zone row's lock writes only while it is false, on the zone row itself, so
 * that an overlay committed meanwhile (which sets it) is seen by that write, which is then made again holding the
 * lock, where the views' zones are signed with it.
 */
export class Migration20261211101500_view_signing extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "view_serials" add column "signer_hidden" bigint[] not null default '{}', add column "signer_records" jsonb not null default '[]';`,
    );
    this.addSql(`alter table "domains" add column "has_view_zones" boolean not null default false;`);
    this.addSql(`update "domains" set "has_view_zones" = true where "id" in (select "domain_id" from "view_serials");`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "domains" drop column if exists "has_view_zones";`);
    this.addSql(`alter table "view_serials" drop column if exists "signer_hidden", drop column if exists "signer_records";`);
  }
}
