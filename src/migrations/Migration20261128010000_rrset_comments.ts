import { Migration } from '@mikro-orm/migrations';

/**
 * Comments on RRsets (docs/powerdns-api.md): the notes PowerDNS-Admin and the PowerDNS API keep beside an
 * owner and type, in the order given. Not DNS data: never served, transferred or signed, and not in the zone's
 * history; they go with their zone.
 */
export class Migration20261128010000_rrset_comments extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "rrset_comments" (
      "domain_id" bigint not null references "domains" ("id") on delete cascade,
      "owner" text not null,
      "type" text not null,
      "position" int not null,
      "content" text not null,
      "account" text not null,
      "modified_at" timestamptz not null,
      primary key ("domain_id", "owner", "type", "position"));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "rrset_comments";`);
  }
}
