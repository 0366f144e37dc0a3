import { Migration } from '@mikro-orm/migrations';

/**
 * A zone's rules' version (docs/changes.md, «A zone's rules»): `domains.rules_version` rises with every change of
 * what the zone's writes are held to (an RRset locked or unlocked, strictChecks, the approvals each change needs),
 * in the transaction that makes it. A change of the zone's records writes only if it is still the one it read
 * (repositories/zone-writes.ts), as it writes only if the serial is: a rule changed between a write's read and its
 * write is seen by that write, whichever edge and process made either.
 */
export class Migration20261230020700_zone_rules_version extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "domains" add column "rules_version" bigint not null default 0;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "domains" drop column if exists "rules_version";`);
  }
}
