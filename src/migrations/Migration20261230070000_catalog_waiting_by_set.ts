import { Migration } from '@mikro-orm/migrations';

/**
 * The zones waiting to join a catalog (src/repositories/catalog.ts) are asked for by nameserver set: every create's
 * admission turn asks whether any zone of its set waits, and the admission takes them. With the waiting zones
 * indexed by id alone, PostgreSQL could answer `catalog_serial is null and nameserver_set = $1` by combining that
 * partial index with `domains_nameserver_set_index`, which for the default set reads every zone: 3 ms at 50,000
 * zones, paid by every create and growing with each, whenever the statistics were older than the zones (the
 * planner then took the set for a few rows). Indexed by set and id, the waiting zones of a set are one short range
 * whatever the statistics say (bench/FINDINGS.md, «Creating zones at 100,000, on a quiet host»).
 */
export class Migration20261230070000_catalog_waiting_by_set extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "domains_catalog_waiting_set_index" on "domains" ("nameserver_set", "id") where "catalog_serial" is null;`);
    this.addSql(`drop index "domains_catalog_waiting_index";`);
  }

  override async down(): Promise<void> {
    this.addSql(`create index "domains_catalog_waiting_index" on "domains" ("id") where "catalog_serial" is null;`);
    this.addSql(`drop index "domains_catalog_waiting_set_index";`);
  }
}
