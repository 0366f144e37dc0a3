import { Migration } from '@mikro-orm/migrations';

/**
 * The NS set a zone's parent lists, as the health checker's last look read it (docs/health.md): a JSON array of
 * host names (lower case, without the final dot), or null when the last look read no delegation (never checked,
 * not delegated yet, the parent out of reach). A change set's plan that changes the apex NS set compares the
 * new set with it (APEX_NS_NOT_AT_PARENT, docs/changes.md) without asking the network.
 */
export class Migration20261211110001_zone_health_parent_ns extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "zone_health" add column "parent_ns" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "zone_health" drop column if exists "parent_ns";`);
  }
}
