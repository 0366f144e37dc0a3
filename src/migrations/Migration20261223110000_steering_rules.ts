import { Migration } from '@mikro-orm/migrations';

/**
 * Steering's rules by client network and by country (docs/steering.md, «Rules by network and country»): a steered
 * RRset keeps its rules (`rules`: each its subnets, its octoDNS geos and its pools in fallback order), and each
 * distinct set of a rule's networks is a view of steering's own (`views.steering_networks`: the rule's subnets and
 * geos as written, one view per such text), whose client networks steering computes and whose overlay of the
 * RRset is the rule's answer.
 */
export class Migration20261223110000_steering_rules extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "steered_rrsets" add column "rules" jsonb not null default '[]';`);
    this.addSql(`alter table "views" add column "steering_networks" text null;`);
    this.addSql(
      `create unique index "views_steering_networks_unique" on "views" ("steering_networks") where "steering_networks" is not null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "views_steering_networks_unique";`);
    this.addSql(`alter table "views" drop column if exists "steering_networks";`);
    this.addSql(`alter table "steered_rrsets" drop column if exists "rules";`);
  }
}
